#include "trace/trace_json.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <iterator>

#include "tokenizer/utf8.h"

namespace llama::trace {

using nlohmann::json;

std::string jsonText(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json jsonNumber(float v) {
    if (std::isfinite(v)) return v;
    return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

json argsJson(const ModelArgs& a) {
    return {{"dim", a.dim},
            {"n_layers", a.n_layers},
            {"n_heads", a.n_heads},
            {"n_kv_heads", a.n_kv_heads},
            {"vocab_size", a.vocab_size},
            {"multiple_of", a.multiple_of},
            {"ffn_dim_multiplier", a.ffn_dim_multiplier ? json(*a.ffn_dim_multiplier) : json(nullptr)},
            {"norm_eps", a.norm_eps},
            {"rope_theta", a.rope_theta},
            {"use_scaled_rope", a.use_scaled_rope},
            {"max_seq_len", a.max_seq_len}};
}

json tokenJson(const Tokenizer& tok, int32_t id) {
    return {{"id", id}, {"piece", tok.pieceForDisplay(id)}, {"special", tok.isSpecial(id)}};
}

json topJson(const Tokenizer& tok, const std::vector<TokenProbability>& top) {
    json out = json::array();
    for (const auto& p : top)
        out.push_back({{"id", p.id}, {"piece", tok.pieceForDisplay(p.id)}, {"logit", jsonNumber(p.logit)}, {"probability", p.probability}});
    return out;
}

namespace {
// The files and scales, and the layer range, as typed (the vectors themselves are not recorded).
json controlVectorsJson(const WhatIf& w) {
    if (!w.steering) return nullptr;
    json files = json::array();
    for (const auto& f : w.steering->files) files.push_back({{"path", f.path}, {"scale", f.scale}});
    const auto& layers = w.steering->layers;
    return {{"files", files}, {"layers", layers ? json::array({layers->first, layers->second}) : json(nullptr)}};
}
}  // namespace

json whatIfJson(const WhatIf& w) {
    json heads = json::array();
    for (auto [layer, head] : w.ablateHeads) heads.push_back({layer, head});
    return {{"noMask", w.noMask},
            {"noKvCache", w.noKvCache},
            {"ropeTheta", w.ropeTheta ? json(*w.ropeTheta) : json(nullptr)},
            {"noRope", w.noRope},
            {"ablateHeads", heads},
            {"skipLayers", w.skipLayers},
            {"computeDType", w.computeDType ? json(computeDTypeWord(*w.computeDType)) : json(nullptr)},
            {"controlVectors", controlVectorsJson(w)}};
}

void appendString(std::string& j, std::string_view s) {
    j += '"';
    for (size_t pos = 0; pos < s.size();) {
        // A run of printable ASCII (nearly every byte of a log line) is appended whole.
        size_t plain = pos;
        while (plain < s.size() && s[plain] >= 0x20 && s[plain] < 0x7f && s[plain] != '"' && s[plain] != '\\') ++plain;
        j.append(s.substr(pos, plain - pos));
        if ((pos = plain) == s.size()) break;
        const auto c = static_cast<unsigned char>(s[pos]);
        if (c >= 0x80) {
            const Utf8Sequence seq = utf8SequenceAt(s, pos);
            if (seq.status == Utf8Status::Complete) j.append(s.substr(pos, seq.length));
            else j += kUtf8Replacement;
            pos += std::max<size_t>(seq.length, 1);
            continue;
        }
        if (c == '"' || c == '\\') j += {'\\', char(c)};
        else if (c == '\n') j += "\\n";
        else if (c < 0x20) j += fmt::format("\\u{:04x}", c);
        else j += char(c);
        ++pos;
    }
    j += '"';
}

void appendNumber(std::string& j, float v) {
    if (std::isfinite(v)) fmt::format_to(std::back_inserter(j), FMT_COMPILE("{}"), v);
    else j += std::isnan(v) ? R"("nan")" : v > 0 ? R"("inf")" : R"("-inf")";
}

void appendStats(std::string& j, const TensorStats& s) {
    j += R"(,"stats":{"min":)";
    appendNumber(j, s.min);
    j += R"(,"max":)";
    appendNumber(j, s.max);
    j += R"(,"mean":)";
    appendNumber(j, s.mean);
    fmt::format_to(std::back_inserter(j), FMT_COMPILE(R"(,"negInf":{},"first":[)"), s.negInf);
    for (size_t i = 0; i < s.first.size(); ++i) {
        if (i) j += ',';
        appendNumber(j, s.first[i]);
    }
    j += "]}";
}

namespace {
// Bit for bit, so a NaN matches itself and -0 does not match 0: the text must be what
// appendStats would write.
bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }  // no std::bit_cast in Emscripten 3.1.6's libc++
bool sameStats(const TensorStats& a, const TensorStats& b) {
    return sameBits(a.min, b.min) && sameBits(a.max, b.max) && sameBits(a.mean, b.mean) && a.negInf == b.negInf &&
           std::equal(a.first.begin(), a.first.end(), b.first.begin(), b.first.end(), sameBits);
}
}  // namespace

void StatsText::append(std::string& j, const TensorStats& s) {
    for (const Entry& e : recent_)
        if (!e.text.empty() && sameStats(e.stats, s)) {
            j += e.text;
            return;
        }
    Entry& e = recent_[next_];
    next_ = (next_ + 1) % recent_.size();
    e.stats = s;
    e.text.clear();
    appendStats(e.text, s);
    j += e.text;
}

}  // namespace llama::trace
