#include "tokenizer/hf_tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tokenizer/byte_level.h"
#include "tokenizer/utf8.h"

#include "io/json_file.h"

namespace llama {

namespace {

using nlohmann::json;

// GPT-2's pattern, used when a ByteLevel pre-tokenizer has use_regex: true.
constexpr std::string_view kGpt2SplitPattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// A pre_tokenizer or normalizer as a flat list (a "Sequence" holds the list under `key`).
std::vector<json> flatten(const json& node, const char* key) {
    if (node.is_null()) return {};
    if (node.value("type", "") == "Sequence" && node.contains(key)) return node[key].get<std::vector<json>>();
    return {node};
}

// tokenizer_config.json spells a token either as "text" or as {"content": "text", ...}.
std::optional<std::string> tokenText(const json& config, const char* key) {
    if (!config.contains(key) || config[key].is_null()) return std::nullopt;
    const json& v = config[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
    return std::nullopt;
}

}  // namespace

HfTokenizer::~HfTokenizer() = default;

HfTokenizer::HfTokenizer(const std::string& path, const std::string& configPath) {
    const json j = readJsonFile(path);
    auto fail = [&](const std::string& what) { throw std::runtime_error(path + ": " + what); };
    if (!j.is_object() || !j.contains("model") || !j["model"].is_object()) fail("no 'model' object");
    const json& model = j["model"];
    if (model.value("type", "BPE") != "BPE") fail(fmt::format("model type '{}' is not supported (only BPE)", model.value("type", "")));
    if (!model.contains("vocab") || !model["vocab"].is_object()) fail("model.vocab must be an object");
    if (!model.contains("merges") || !model["merges"].is_array()) fail("model.merges must be an array");
    ignoreMerges_ = model.value("ignore_merges", false);
    byteFallback_ = model.value("byte_fallback", false);

    // Flavour, from the pre-tokenizer and normalizer.
    bool byteLevel = false, prepend = false, replace = false;
    std::string splitPattern;
    for (const json& p : flatten(j.value("pre_tokenizer", json()), "pretokenizers")) {
        const std::string type = p.value("type", "");
        if (type == "ByteLevel") {
            byteLevel = true;
            if (p.value("use_regex", true) && splitPattern.empty()) splitPattern = kGpt2SplitPattern;
        } else if (type == "Split") {
            if (!p.contains("pattern") || !p["pattern"].contains("Regex")) fail("a Split pre-tokenizer without a Regex pattern is not supported");
            if (p.value("behavior", "Isolated") != "Isolated" || p.value("invert", false))
                fail("only Split pre-tokenizers with behavior Isolated and invert false are supported");
            splitPattern = p["pattern"]["Regex"].get<std::string>();
            // An empty pattern matches nowhere: every text would encode to nothing.
            if (splitPattern.empty()) fail("the Split pre-tokenizer's Regex pattern is empty");
        } else {
            fail(fmt::format("pre-tokenizer '{}' is not supported", type));
        }
    }
    for (const json& n : flatten(j.value("normalizer", json()), "normalizers")) {
        const std::string type = n.value("type", "");
        if (type == "Prepend" && n.value("prepend", "") == kSpmSpace) prepend = true;
        else if (type == "Replace" && n.contains("pattern") && n["pattern"].value("String", "") == " " && n.value("content", "") == kSpmSpace)
            replace = true;
        else fail(fmt::format("normalizer '{}' is not supported", type));
    }
    if (byteLevel && (prepend || replace)) fail("both a ByteLevel pre-tokenizer and a SentencePiece normalizer");
    if (!byteLevel && !(prepend && replace))
        fail("neither byte-level (ByteLevel pre-tokenizer) nor SentencePiece-style (Prepend and Replace \"▁\" normalizer)");
    flavour_ = byteLevel ? Flavour::ByteLevel : Flavour::SentencePiece;
    try {
        if (!splitPattern.empty()) splitter_ = std::make_unique<RegexSplitter>(splitPattern);
    } catch (const std::invalid_argument& e) {
        fail(e.what());
    }

    // Ids: the model's vocabulary plus added tokens, together 0..V-1 without gaps.
    std::vector<std::optional<std::string>> byId;
    auto place = [&](int64_t id, std::string bytes, const std::string& spelled) {
        if (id < 0 || id > 10'000'000) fail(fmt::format("token '{}' has id {} out of range", spelled, id));
        if (size_t(id) >= byId.size()) byId.resize(size_t(id) + 1);
        byId[size_t(id)] = std::move(bytes);
    };
    for (const auto& [spelled, idJson] : model["vocab"].items()) {
        if (!idJson.is_number_integer()) fail(fmt::format("vocab entry '{}' has a non-integer id", spelled));
        const int32_t id = idJson.get<int32_t>();
        std::string bytes;
        if (byteLevel) {
            auto raw = byteLevelDecode(spelled);
            if (!raw) fail(fmt::format("vocab entry '{}' has a character outside the byte-level alphabet", spelled));
            bytes = *raw;
        } else if (byteFallback_ && spelled.size() == 6 && spelled.rfind("<0x", 0) == 0 && spelled[5] == '>') {
            bytes = char(std::stoi(spelled.substr(3, 2), nullptr, 16));
        } else {
            bytes = spelled;
            for (size_t pos; (pos = bytes.find(kSpmSpace)) != std::string::npos;) bytes.replace(pos, kSpmSpace.size(), " ");
        }
        vocab_.emplace(spelled, id);
        place(id, std::move(bytes), spelled);
    }
    std::vector<int32_t> specialIds;
    for (const json& t : j.value("added_tokens", json::array())) {
        if (!t.contains("id") || !t["id"].is_number_integer() || !t.contains("content") || !t["content"].is_string())
            fail("an added_tokens entry needs an integer 'id' and a string 'content'");
        const std::string content = t["content"];
        const int32_t id = t["id"];
        if (content.empty() || firstInvalidUtf8(content)) fail(fmt::format("added token {} is empty or not UTF-8", id));
        added_[content] = id;
        addedFirstBytes_.set(static_cast<unsigned char>(content[0]));
        place(id, content, content);
        if (t.value("special", false)) specialIds.push_back(id);
    }
    for (size_t id = 0; id < byId.size(); ++id) {
        if (!byId[id]) fail(fmt::format("no token has id {} (ids must be 0..{} without gaps)", id, byId.size() - 1));
        bytes_.push_back(std::move(*byId[id]));
    }
    special_.assign(bytes_.size(), false);
    for (int32_t id : specialIds) special_[id] = true;
    if (const auto unk = model.value("unk_token", json()); unk.is_string()) {
        const auto it = vocab_.find(unk.get<std::string>());
        if (it != vocab_.end()) unk_ = it->second;
    }

    // Merges, as "left right" strings (older files) or [left, right] pairs.
    const auto& merges = model["merges"];
    for (size_t i = 0; i < merges.size(); ++i) {
        std::string left, right;
        if (merges[i].is_string()) {
            const std::string m = merges[i];
            const size_t space = m.find(' ');
            if (space == std::string::npos) fail(fmt::format("merge {} '{}' is not two tokens separated by a space", i, m));
            left = m.substr(0, space);
            right = m.substr(space + 1);
        } else if (merges[i].is_array() && merges[i].size() == 2 && merges[i][0].is_string() && merges[i][1].is_string()) {
            left = merges[i][0];
            right = merges[i][1];
        } else {
            fail(fmt::format("merge {} is neither \"left right\" nor [left, right]", i));
        }
        const auto l = vocab_.find(left), r = vocab_.find(right), m = vocab_.find(left + right);
        if (l == vocab_.end() || r == vocab_.end() || m == vocab_.end())
            fail(fmt::format("merge {} ('{}' + '{}') uses or makes a token that is not in the vocabulary", i, left, right));
        merges_.add(l->second, r->second, m->second, int32_t(i));
    }

    // BOS/EOS from tokenizer_config.json (or the usual names), stops, chat template.
    json config = configPath.empty() ? json::object() : readJsonFile(configPath);
    auto idOf = [&](const std::string& text, const char* what) {
        const auto id = specialId(text);
        if (!id) throw std::runtime_error(fmt::format("{}: {} '{}' is not a token", configPath.empty() ? path : configPath, what, text));
        return *id;
    };
    const bool llama3 = specialId("<|begin_of_text|>").has_value();
    bos_ = idOf(tokenText(config, "bos_token").value_or(llama3 ? "<|begin_of_text|>" : "<s>"), "bos_token");
    stops_.push_back(idOf(tokenText(config, "eos_token").value_or(llama3 ? "<|end_of_text|>" : "</s>"), "eos_token"));
    for (const char* name : {"<|eot_id|>", "<|end_of_text|>"})
        if (auto id = specialId(name); id && std::find(stops_.begin(), stops_.end(), *id) == stops_.end()) stops_.push_back(*id);
    if (config.contains("chat_template")) {
        const json& t = config["chat_template"];
        if (t.is_string()) chatTemplate_ = t;
        // Some files list several named templates; the "default" one is what a chat uses.
        else if (t.is_array())
            for (const json& named : t)
                if (named.value("name", "") == "default") chatTemplate_ = named.value("template", "");
    }
}

std::vector<int32_t> HfTokenizer::encode(std::string_view text, bool allowSpecial) const {
    if (const auto bad = firstInvalidUtf8(text))
        throw std::invalid_argument(fmt::format("tokenizer input is not valid UTF-8: byte 0x{:02X} at byte offset {}",
                                                static_cast<unsigned char>(text[*bad]), *bad));
    std::vector<int32_t> ids;
    size_t done = 0;
    if (allowSpecial) {
        // Leftmost added token first; at one position the longest one wins.
        for (size_t i = 0; i < text.size();) {
            if (!addedFirstBytes_.test(static_cast<unsigned char>(text[i]))) {
                ++i;
                continue;
            }
            size_t bestLen = 0;
            int32_t bestId = -1;
            for (const auto& [content, id] : added_)
                if (content.size() > bestLen && text.compare(i, content.size(), content) == 0) {
                    bestLen = content.size();
                    bestId = id;
                }
            if (!bestLen) {
                ++i;
                continue;
            }
            encodeOrdinary(text.substr(done, i - done), ids);
            ids.push_back(bestId);
            i += bestLen;
            done = i;
        }
    }
    encodeOrdinary(text.substr(done), ids);
    return ids;
}

void HfTokenizer::encodeOrdinary(std::string_view text, std::vector<int32_t>& out) const {
    if (text.empty()) return;
    if (flavour_ == Flavour::ByteLevel) {
        if (!splitter_) return encodePiece(byteLevelEncode(text), out);
        for (std::string_view piece : splitter_->split(text)) encodePiece(byteLevelEncode(piece), out);
        return;
    }
    // SentencePiece flavour: "▁" before the text and for every space; no pre-tokenization.
    std::string spelled(kSpmSpace);
    for (char c : text) {
        if (c == ' ') spelled.append(kSpmSpace);
        else spelled.push_back(c);
    }
    encodePiece(spelled, out);
}

void HfTokenizer::encodePiece(std::string_view spelled, std::vector<int32_t>& out) const {
    if (ignoreMerges_)
        if (const auto it = vocab_.find(spelled); it != vocab_.end()) return out.push_back(it->second);
    std::vector<int32_t> symbols;
    for (size_t pos = 0; pos < spelled.size();) {
        const size_t len = utf8SequenceAt(spelled, pos).length;
        const std::string_view ch = spelled.substr(pos, len);
        pos += len;
        if (const auto it = vocab_.find(ch); it != vocab_.end()) {
            symbols.push_back(it->second);
            continue;
        }
        if (byteFallback_) {
            for (unsigned char b : ch) {
                const auto it = vocab_.find(fmt::format("<0x{:02X}>", b));
                if (it == vocab_.end()) throw std::runtime_error(fmt::format("byte fallback token <0x{:02X}> is missing", b));
                symbols.push_back(it->second);
            }
            continue;
        }
        if (!unk_) throw std::runtime_error(fmt::format("'{}' has no token and the tokenizer has no unk_token", ch));
        symbols.push_back(*unk_);
    }
    merges_.apply(symbols);
    out.insert(out.end(), symbols.begin(), symbols.end());
}

std::string HfTokenizer::decodeToken(int32_t id) const {
    if (id < 0 || id >= vocabSize())
        throw std::out_of_range(fmt::format("token id {} is outside the vocabulary [0, {})", id, vocabSize()));
    return bytes_[id];
}

bool HfTokenizer::isSpecial(int32_t id) const { return id >= 0 && id < vocabSize() && special_[id]; }

std::optional<int32_t> HfTokenizer::specialId(std::string_view name) const {
    const auto it = added_.find(name);
    if (it == added_.end()) return std::nullopt;
    return it->second;
}

}  // namespace llama
