#include "tokenizer/tiktoken_tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "tokenizer/tiktoken_file.h"
#include "tokenizer/utf8.h"

namespace llama {

std::vector<std::string> TiktokenTokenizer::llama3SpecialTokens() {
    std::vector<std::string> names = {
        "<|begin_of_text|>",
        "<|end_of_text|>",
        "<|reserved_special_token_0|>",
        "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>",
        "<|reserved_special_token_2|>",
        "<|start_header_id|>",
        "<|end_header_id|>",
        "<|eom_id|>",  // end of message (tool calls)
        "<|eot_id|>",  // end of turn
        "<|python_tag|>",
    };
    // The rest are reserved, numbered on from 3: 11 named + 245 reserved = 256.
    for (int i = 3; names.size() < 256; ++i) names.push_back("<|reserved_special_token_" + std::to_string(i) + "|>");
    return names;
}

TiktokenTokenizer::TiktokenTokenizer(const std::string& path, std::vector<std::string> specialTokens,
                                     std::string_view splitPattern)
    : TiktokenTokenizer(loadTiktokenRanks(path), std::move(specialTokens), splitPattern) {}

TiktokenTokenizer::TiktokenTokenizer(std::vector<std::string> rankedTokens, std::vector<std::string> specialTokens,
                                     std::string_view splitPattern)
    : tokens_(std::move(rankedTokens)), splitter_(splitPattern) {
    numBaseTokens_ = int32_t(tokens_.size());
    ranks_.reserve(tokens_.size());
    for (int32_t rank = 0; rank < numBaseTokens_; ++rank) ranks_.emplace(tokens_[rank], rank);
    for (auto& name : specialTokens) {
        if (name.empty()) throw std::invalid_argument("empty special token name");
        if (firstInvalidUtf8(name)) throw std::invalid_argument("special token '" + name + "' is not valid UTF-8");
        const int32_t id = int32_t(tokens_.size());
        if (!specials_.emplace(name, id).second) throw std::invalid_argument("special token '" + name + "' listed twice");
        specialFirstBytes_.set(static_cast<unsigned char>(name[0]));
        if (std::find(specialLengths_.begin(), specialLengths_.end(), name.size()) == specialLengths_.end())
            specialLengths_.push_back(name.size());
        tokens_.push_back(std::move(name));
    }
    std::sort(specialLengths_.rbegin(), specialLengths_.rend());
}

std::vector<int32_t> TiktokenTokenizer::encode(std::string_view text, bool allowSpecial) const {
    // Invalid UTF-8 is rejected rather than silently replaced: a prompt that is not text is
    // almost always a bug (wrong file, wrong encoding) worth seeing. Checked once here, so
    // the regex can skip its own check.
    if (const auto bad = firstInvalidUtf8(text)) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[*bad]));
        throw std::invalid_argument("tokenizer input is not valid UTF-8: byte " + std::string(hex) +
                                    " at byte offset " + std::to_string(*bad));
    }
    std::vector<int32_t> ids;
    size_t done = 0;  // text before this is encoded
    if (allowSpecial && !specials_.empty()) {
        // Leftmost special token first; at one position the longest one wins.
        for (size_t i = 0; i < text.size();) {
            if (!specialFirstBytes_.test(static_cast<unsigned char>(text[i]))) {
                ++i;
                continue;
            }
            bool found = false;
            for (size_t len : specialLengths_) {
                if (i + len > text.size()) continue;
                const auto it = specials_.find(text.substr(i, len));
                if (it == specials_.end()) continue;
                encodeOrdinary(text.substr(done, i - done), ids);
                ids.push_back(it->second);
                i += len;
                done = i;
                found = true;
                break;
            }
            if (!found) ++i;
        }
    }
    encodeOrdinary(text.substr(done), ids);
    return ids;
}

void TiktokenTokenizer::encodeOrdinary(std::string_view text, std::vector<int32_t>& out) const {
    if (text.empty()) return;
    for (std::string_view piece : splitter_.split(text)) bytePairEncode(piece, ranks_, out);
}

std::string TiktokenTokenizer::decodeToken(int32_t id) const {
    if (id < 0 || id >= vocabSize())
        throw std::out_of_range("token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                                std::to_string(vocabSize()) + ")");
    return tokens_[id];
}

std::optional<int32_t> TiktokenTokenizer::specialId(std::string_view name) const {
    const auto it = specials_.find(name);
    if (it == specials_.end()) return std::nullopt;
    return it->second;
}

int32_t TiktokenTokenizer::requireSpecial(std::string_view name) const {
    if (const auto id = specialId(name)) return *id;
    throw std::logic_error("tokenizer has no special token " + std::string(name));
}

int32_t TiktokenTokenizer::bosId() const { return requireSpecial("<|begin_of_text|>"); }

std::vector<int32_t> TiktokenTokenizer::stopIds() const {
    return {requireSpecial("<|eot_id|>"), requireSpecial("<|end_of_text|>")};
}

}  // namespace llama
