#include "tokenizer/spm_scores_tokenizer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>

#include "tokenizer/merge_loop.h"
#include "tokenizer/utf8.h"

namespace llama {

namespace {


std::string escapeSpaces(std::string_view text) {
    std::string s;
    for (char c : text) {
        if (c == ' ')
            s += kSpmSpace;
        else
            s += c;
    }
    return s;
}

// "<0x41>" -> 0x41; -1 if the piece is not of that form.
int byteOfPiece(const std::string& p) {
    unsigned value = 0;
    if (p.size() != 6 || p.compare(0, 3, "<0x") != 0 || p[5] != '>' || std::sscanf(p.c_str() + 3, "%2x", &value) != 1) return -1;
    return int(value);
}

}  // namespace

SpmScoresTokenizer::SpmScoresTokenizer(std::vector<std::string> pieces, std::vector<float> scores, std::vector<int32_t> types,
                                       int32_t bosId, std::vector<int32_t> stopIds, bool addSpacePrefix)
    : pieces_(std::move(pieces)), types_(std::move(types)), addSpacePrefix_(addSpacePrefix) {
    bos_ = bosId;
    stops_ = std::move(stopIds);
    const size_t n = pieces_.size();
    if (scores.size() != n || types_.size() != n)
        throw std::invalid_argument("SentencePiece vocabulary: " + std::to_string(n) + " pieces but " + std::to_string(scores.size()) +
                                    " scores and " + std::to_string(types_.size()) + " token types");
    auto checkId = [&](int32_t id, const char* what) {
        if (id < 0 || size_t(id) >= n) throw std::invalid_argument(std::string("SentencePiece vocabulary: ") + what + " id " + std::to_string(id) + " is not a token");
    };
    checkId(bos_, "BOS");
    for (int32_t s : stops_) checkId(s, "EOS");
    byteIds_.fill(-1);
    for (int32_t id = 0; id < int32_t(n); ++id) {
        const std::string& p = pieces_[size_t(id)];
        switch (types_[size_t(id)]) {
            case Control: controlIds_.emplace(p, id); break;
            case Byte:
                if (int b = byteOfPiece(p); b >= 0) byteIds_[size_t(b)] = id;
                break;
            case Unknown:
                if (unk_ < 0) unk_ = id;
                break;
            default:
                if (std::isnan(scores[size_t(id)]))
                    throw std::invalid_argument("SentencePiece vocabulary: piece " + std::to_string(id) + " has a score that is not a number");
                pieceIds_.emplace(p, id);
        }
    }
    std::vector<float> distinct;
    for (const auto& [piece, id] : pieceIds_) distinct.push_back(scores[size_t(id)]);
    std::sort(distinct.begin(), distinct.end(), std::greater<>());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    mergeRanks_.assign(n, kNoMerge);
    for (const auto& [piece, id] : pieceIds_)
        mergeRanks_[size_t(id)] =
            int32_t(std::lower_bound(distinct.begin(), distinct.end(), scores[size_t(id)], std::greater<>()) - distinct.begin());
    scores_ = std::move(scores);
}

bool SpmScoresTokenizer::isSpecial(int32_t id) const { return id >= 0 && id < vocabSize() && types_[size_t(id)] == Control; }

std::optional<int32_t> SpmScoresTokenizer::specialId(std::string_view name) const {
    auto it = controlIds_.find(std::string(name));
    if (it == controlIds_.end()) return std::nullopt;
    return it->second;
}

std::string SpmScoresTokenizer::decodeToken(int32_t id) const {
    if (id < 0 || id >= vocabSize()) throw std::out_of_range("token id " + std::to_string(id) + " is outside the vocabulary");
    const std::string& p = pieces_[size_t(id)];
    if (types_[size_t(id)] == Byte)
        if (int b = byteOfPiece(p); b >= 0) return std::string(1, char(b));
    if (types_[size_t(id)] == Control) return p;
    std::string out;
    for (size_t i = 0; i < p.size();) {
        if (p.compare(i, kSpmSpace.size(), kSpmSpace) == 0) {
            out += ' ';
            i += kSpmSpace.size();
        } else {
            out += p[i++];
        }
    }
    return out;
}

std::vector<int32_t> SpmScoresTokenizer::encode(std::string_view text, bool allowSpecial) const {
    if (auto bad = firstInvalidUtf8(text)) throw std::invalid_argument("text is not valid UTF-8 at byte offset " + std::to_string(*bad));
    std::vector<int32_t> out;
    bool afterSpecial = true;  // the text's start counts as "after a special token"
    size_t start = 0;
    auto flush = [&](size_t end) {
        if (end > start) {
            std::string piece(text.substr(start, end - start));
            encodeOrdinary(addSpacePrefix_ && afterSpecial ? " " + piece : piece, out);
            afterSpecial = false;
        }
    };
    for (size_t i = 0; allowSpecial && i < text.size(); ++i) {
        // The longest control token starting here (they are few: a linear scan is enough).
        int32_t best = -1;
        size_t bestLen = 0;
        for (const auto& [name, id] : controlIds_)
            if (name.size() > bestLen && text.compare(i, name.size(), name) == 0) best = id, bestLen = name.size();
        if (best < 0) continue;
        flush(i);
        out.push_back(best);
        afterSpecial = true;
        start = i + bestLen;
        i = start - 1;
    }
    flush(text.size());
    return out;
}

void SpmScoresTokenizer::encodeOrdinary(std::string text, std::vector<int32_t>& out) const {
    text = escapeSpaces(text);
    // Units are the text's UTF-8 characters (unit u is bytes [start[u], start[u + 1])); a pair
    // is ranked by the score of the piece it spells.
    std::vector<size_t> start;
    for (size_t i = 0; i < text.size(); i += utf8SequenceAt(text, i).length) start.push_back(i);
    const int32_t units = int32_t(start.size());
    start.push_back(text.size());
    auto spelled = [&](int32_t begin, int32_t end) { return std::string_view(text).substr(start[begin], start[end] - start[begin]); };
    mergeAdjacentPairs(
        units,
        [&](int32_t left, int32_t, int32_t rightEnd) {
            const auto it = pieceIds_.find(std::string(spelled(left, rightEnd)));
            return it == pieceIds_.end() ? kNoMerge : mergeRanks_[size_t(it->second)];
        },
        [](int32_t, int32_t) {},
        [&](int32_t begin, int32_t end) {
            const std::string_view piece = spelled(begin, end);
            if (auto it = pieceIds_.find(std::string(piece)); it != pieceIds_.end()) {
                out.push_back(it->second);
                return;
            }
            for (unsigned char b : piece) {
                int32_t id = byteIds_[b] >= 0 ? byteIds_[b] : unk_;
                if (id < 0) throw std::invalid_argument("cannot encode byte " + std::to_string(b) + ": no <0xNN> token and no unknown token");
                out.push_back(id);
            }
        });
}

}  // namespace llama
