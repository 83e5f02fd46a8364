#include "tokenizer/spm_scores_tokenizer.h"

#include <cstdio>
#include <queue>
#include <stdexcept>

#include "tokenizer/utf8.h"

namespace llama {

namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581 "▁"

std::string escapeSpaces(std::string_view text) {
    std::string s;
    for (char c : text) {
        if (c == ' ')
            s += kSpace;
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
    : pieces_(std::move(pieces)), scores_(std::move(scores)), types_(std::move(types)), addSpacePrefix_(addSpacePrefix) {
    bos_ = bosId;
    stops_ = std::move(stopIds);
    const size_t n = pieces_.size();
    if (scores_.size() != n || types_.size() != n)
        throw std::invalid_argument("SentencePiece vocabulary: " + std::to_string(n) + " pieces but " + std::to_string(scores_.size()) +
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
            default: pieceIds_.emplace(p, id);
        }
    }
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
        if (p.compare(i, kSpace.size(), kSpace) == 0) {
            out += ' ';
            i += kSpace.size();
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
    // Symbols as a linked list over the text: [begin, begin + len), merged ones have len 0.
    struct Symbol {
        size_t begin, len;
        int prev, next;
    };
    std::vector<Symbol> sym;
    for (size_t i = 0; i < text.size();) {
        size_t len = utf8SequenceAt(text, i).length;
        sym.push_back({i, len, int(sym.size()) - 1, int(sym.size()) + 1});
        i += len;
    }
    if (sym.empty()) return;
    sym.back().next = -1;

    struct Bigram {
        float score;
        int left;
        size_t len;  // the pair's combined length when queued: stale entries no longer match
        bool operator<(const Bigram& o) const { return score < o.score || (score == o.score && left > o.left); }
    };
    std::priority_queue<Bigram> queue;
    auto tryPair = [&](int l) {
        if (l < 0 || sym[size_t(l)].next < 0) return;
        const Symbol& a = sym[size_t(l)];
        const Symbol& b = sym[size_t(a.next)];
        auto it = pieceIds_.find(text.substr(a.begin, a.len + b.len));
        if (it != pieceIds_.end()) queue.push({scores_[size_t(it->second)], l, a.len + b.len});
    };
    for (int i = 0; i + 1 < int(sym.size()); ++i) tryPair(i);
    while (!queue.empty()) {
        Bigram top = queue.top();
        queue.pop();
        Symbol& l = sym[size_t(top.left)];
        if (l.len == 0 || l.next < 0 || l.len + sym[size_t(l.next)].len != top.len) continue;
        Symbol& r = sym[size_t(l.next)];
        l.len += r.len;
        r.len = 0;
        l.next = r.next;
        if (l.next >= 0) sym[size_t(l.next)].prev = top.left;
        tryPair(l.prev);
        tryPair(top.left);
    }
    for (int i = 0; i >= 0; i = sym[size_t(i)].next) {
        std::string piece = text.substr(sym[size_t(i)].begin, sym[size_t(i)].len);
        if (auto it = pieceIds_.find(piece); it != pieceIds_.end()) {
            out.push_back(it->second);
            continue;
        }
        for (unsigned char b : piece) {
            int32_t id = byteIds_[b] >= 0 ? byteIds_[b] : unk_;
            if (id < 0) throw std::invalid_argument("cannot encode byte " + std::to_string(b) + ": no <0xNN> token and no unknown token");
            out.push_back(id);
        }
    }
}

}  // namespace llama
