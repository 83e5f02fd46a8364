#include "formats/gguf/gguf_tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "tokenizer/byte_level.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/spm_scores_tokenizer.h"

namespace llama {

namespace {

// llama.cpp's token types (llama_token_type).
constexpr int32_t kTokenNormal = 1, kTokenControl = 3;

[[noreturn]] void fail(const GgufFile& f, const std::string& what) { throw std::runtime_error(f.path() + ": " + what); }

const GgufValue& stringArray(const GgufFile& f, const std::string& key) {
    const GgufValue* v = f.find(key);
    if (!v) fail(f, "missing metadata '" + key + "'");
    if (v->type != GgufType::Array || v->elementType != GgufType::String)
        fail(f, "metadata '" + key + "' must be an array of strings");
    return *v;
}

std::optional<int64_t> optionalId(const GgufFile& f, const std::string& key) {
    const GgufValue* v = f.find(key);
    if (!v) return std::nullopt;
    if (!v->isInteger()) fail(f, "metadata '" + key + "' must be an integer");
    return v->integer;
}

// The merges must describe the same BPE as ranking by id: every merge joins two tokens into a
// third, and the results come in id order (Hugging Face's tiktoken conversion lists every
// split of a token, so a part may have a larger id than the result; tiktoken never uses those).
void checkMergesFollowIds(const GgufFile& f, const GgufValue& merges, const std::unordered_map<std::string, int32_t>& ids) {
    int32_t previous = -1;
    for (size_t i = 0; i < merges.items.size(); ++i) {
        const std::string& m = merges.items[i].text;
        size_t space = m.find(' ', 1);
        auto bad = [&](const std::string& why) {
            fail(f, fmt::format("tokenizer.ggml.merges[{}] '{}' {}: only vocabularies ranked by id (Llama 3) are supported", i, m, why));
        };
        if (space == std::string::npos) bad("is not two tokens separated by a space");
        auto left = ids.find(m.substr(0, space)), right = ids.find(m.substr(space + 1)),
             merged = ids.find(m.substr(0, space) + m.substr(space + 1));
        if (left == ids.end() || right == ids.end() || merged == ids.end()) bad("names a token that is not in the vocabulary");
        if (merged->second < previous) bad("comes after a merge with a larger result id");
        previous = merged->second;
    }
}

std::shared_ptr<const Tokenizer> loadGpt2(const GgufFile& f) {
    const GgufValue* pre = f.find("tokenizer.ggml.pre");
    std::string preName = pre && pre->type == GgufType::String ? pre->text : "(absent)";
    if (preName != "llama-bpe")
        fail(f, fmt::format("tokenizer.ggml.pre '{}' is not supported: only Llama 3's 'llama-bpe' pre-tokenizer is", preName));
    const GgufValue& tokens = stringArray(f, "tokenizer.ggml.tokens");
    const GgufValue* types = f.find("tokenizer.ggml.token_type");
    if (types && (types->type != GgufType::Array || types->items.size() != tokens.items.size() ||
                  (!types->items.empty() && !types->items[0].isInteger())))
        fail(f, "tokenizer.ggml.token_type must be an integer array as long as tokenizer.ggml.tokens");
    // Ordinary tokens first (ids = ranks), control tokens after them, as tiktoken numbers them.
    std::vector<std::string> ranked, specials;
    std::unordered_map<std::string, int32_t> ids;
    for (size_t i = 0; i < tokens.items.size(); ++i) {
        const std::string& text = tokens.items[i].text;
        bool control = types && types->items[i].integer == kTokenControl;
        if (control) {
            specials.push_back(text);
            continue;
        }
        if (!specials.empty())
            fail(f, fmt::format("token {} '{}' is an ordinary token after control tokens: only vocabularies with the control tokens "
                                "at the end (Llama 3) are supported", i, text));
        auto bytes = byteLevelDecode(text);
        if (!bytes) fail(f, fmt::format("tokenizer.ggml.tokens[{}] '{}' is not a byte-level (GPT-2) token string", i, text));
        ranked.push_back(*bytes);
        ids.emplace(text, int32_t(i));
    }
    if (const GgufValue* merges = f.find("tokenizer.ggml.merges")) {
        if (merges->type != GgufType::Array || merges->elementType != GgufType::String)
            fail(f, "tokenizer.ggml.merges must be an array of strings");
        checkMergesFollowIds(f, *merges, ids);
    }
    auto tokenizer = std::make_shared<TiktokenTokenizer>(std::move(ranked), std::move(specials), kLlama3SplitPattern);
    if (auto bos = optionalId(f, "tokenizer.ggml.bos_token_id"); bos && *bos != tokenizer->bosId())
        fail(f, fmt::format("tokenizer.ggml.bos_token_id {} is not <|begin_of_text|> ({})", *bos, tokenizer->bosId()));
    if (auto eos = optionalId(f, "tokenizer.ggml.eos_token_id")) {
        auto stops = tokenizer->stopIds();
        if (std::find(stops.begin(), stops.end(), *eos) == stops.end())
            fail(f, fmt::format("tokenizer.ggml.eos_token_id {} is neither <|eot_id|> nor <|end_of_text|>", *eos));
    }
    return tokenizer;
}

// "llama": pieces with scores and types (SentencePiece's vocabulary, Llama 2).
std::shared_ptr<const Tokenizer> loadSpm(const GgufFile& f) {
    const GgufValue& tokens = stringArray(f, "tokenizer.ggml.tokens");
    const size_t n = tokens.items.size();
    auto numbers = [&](const std::string& key, bool isFloat) -> const GgufValue& {
        const GgufValue* v = f.find(key);
        if (!v) fail(f, "missing metadata '" + key + "'");
        if (v->type != GgufType::Array || v->items.size() != n || (n && (isFloat ? !v->items[0].isFloat() : !v->items[0].isInteger())))
            fail(f, fmt::format("metadata '{}' must be {} array as long as tokenizer.ggml.tokens ({})", key, isFloat ? "a float" : "an integer", n));
        return *v;
    };
    const GgufValue& scoreValues = numbers("tokenizer.ggml.scores", true);
    const GgufValue& typeValues = numbers("tokenizer.ggml.token_type", false);
    std::vector<std::string> pieces;
    std::vector<float> scores;
    std::vector<int32_t> types;
    for (size_t i = 0; i < n; ++i) {
        pieces.push_back(tokens.items[i].text);
        scores.push_back(float(scoreValues.items[i].real));
        types.push_back(int32_t(typeValues.items[i].integer));
    }
    int64_t bos = optionalId(f, "tokenizer.ggml.bos_token_id").value_or(1);
    std::vector<int32_t> stops{int32_t(optionalId(f, "tokenizer.ggml.eos_token_id").value_or(2))};
    if (auto eot = optionalId(f, "tokenizer.ggml.eot_token_id"); eot && *eot != stops[0]) stops.push_back(int32_t(*eot));
    const GgufValue* prefix = f.find("tokenizer.ggml.add_space_prefix");
    if (prefix && prefix->type != GgufType::Bool) fail(f, "metadata 'tokenizer.ggml.add_space_prefix' must be a bool");
    try {
        return std::make_shared<SpmScoresTokenizer>(std::move(pieces), std::move(scores), std::move(types), int32_t(bos), std::move(stops),
                                                    prefix ? prefix->integer != 0 : true);
    } catch (const std::invalid_argument& e) {
        fail(f, e.what());
    }
}

}  // namespace

std::shared_ptr<const Tokenizer> loadGgufTokenizer(const GgufFile& f) {
    const GgufValue* model = f.find("tokenizer.ggml.model");
    if (!model || model->type != GgufType::String) fail(f, "missing metadata 'tokenizer.ggml.model' (the file has no tokenizer)");
    if (model->text == "gpt2") return loadGpt2(f);
    if (model->text == "llama") return loadSpm(f);
    fail(f, fmt::format("tokenizer.ggml.model '{}' is not supported (supported: 'gpt2', Llama 3's byte-level BPE, and 'llama', "
                        "SentencePiece with scores)", model->text));
}

void addGgufTokenizer(GgufWriter& w, const TiktokenTokenizer& t) {
    const int32_t n = t.numBaseTokens();
    std::unordered_map<std::string, int32_t> rank;
    for (int32_t id = 0; id < n; ++id) rank.emplace(t.decodeToken(id), id);
    std::vector<std::string> tokens;
    std::vector<int32_t> types;
    struct Merge {
        int32_t result, left, right;
    };
    std::vector<Merge> merges;
    for (int32_t id = 0; id < t.vocabSize(); ++id) {
        std::string bytes = t.decodeToken(id);
        bool special = id >= n;
        tokens.push_back(special ? bytes : byteLevelEncode(bytes));
        types.push_back(special ? kTokenControl : kTokenNormal);
        if (special) continue;
        std::vector<Merge> local;
        for (size_t cut = 1; cut < bytes.size(); ++cut) {
            auto l = rank.find(bytes.substr(0, cut)), r = rank.find(bytes.substr(cut));
            if (l != rank.end() && r != rank.end()) local.push_back({id, l->second, r->second});
        }
        std::sort(local.begin(), local.end(), [](const Merge& a, const Merge& b) { return std::pair(a.left, a.right) < std::pair(b.left, b.right); });
        merges.insert(merges.end(), local.begin(), local.end());
    }
    std::vector<std::string> mergeStrings;
    mergeStrings.reserve(merges.size());
    for (const Merge& m : merges) mergeStrings.push_back(tokens[size_t(m.left)] + " " + tokens[size_t(m.right)]);

    w.add("tokenizer.ggml.model", GgufValue::ofString("gpt2"));
    w.add("tokenizer.ggml.pre", GgufValue::ofString("llama-bpe"));
    w.add("tokenizer.ggml.tokens", GgufValue::ofStrings(tokens));
    w.add("tokenizer.ggml.token_type", GgufValue::ofI32s(types));
    w.add("tokenizer.ggml.merges", GgufValue::ofStrings(mergeStrings));
    w.add("tokenizer.ggml.bos_token_id", GgufValue::ofU32(uint32_t(t.bosId())));
    // The base model's end of text; <|eot_id|> (an instruct model's end of turn) stops generation too.
    w.add("tokenizer.ggml.eos_token_id", GgufValue::ofU32(uint32_t(*t.specialId("<|end_of_text|>"))));
}

void addGgufTokenizer(GgufWriter& w, const SpmScoresTokenizer& t) {
    w.add("tokenizer.ggml.model", GgufValue::ofString("llama"));
    w.add("tokenizer.ggml.tokens", GgufValue::ofStrings(t.pieces()));
    w.add("tokenizer.ggml.scores", GgufValue::ofF32s(t.scores()));
    w.add("tokenizer.ggml.token_type", GgufValue::ofI32s(t.types()));
    w.add("tokenizer.ggml.bos_token_id", GgufValue::ofU32(uint32_t(t.bosId())));
    w.add("tokenizer.ggml.eos_token_id", GgufValue::ofU32(uint32_t(t.stopIds().at(0))));
    w.add("tokenizer.ggml.add_space_prefix", GgufValue::ofBool(t.addSpacePrefix()));
}

}  // namespace llama
