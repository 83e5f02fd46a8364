#include "tokenize_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "quoted_bytes.h"
#include "tokenizer/tiktoken_tokenizer.h"

namespace llama::cli {

namespace {

// At most `limit` parts, then how many more: a long piece's merge steps stay lines, not pages.
std::string quotedList(const std::vector<std::string>& parts, size_t limit = SIZE_MAX) {
    std::string out;
    for (size_t i = 0; i < parts.size() && i < limit; ++i) out += (out.empty() ? "" : " ") + quotedBytes(parts[i]);
    if (parts.size() > limit) out += fmt::format(" ... ({} parts in all)", parts.size());
    return out;
}
constexpr size_t kPartsPerLine = 64;

void appendMerges(std::string& out, const TiktokenTokenizer& tok, std::string_view piece) {
    const BpeTrace trace = tok.traceMerges(piece);
    out += fmt::format("\nBPE merges for {}:\n  start: {}\n", quotedBytes(piece), quotedList(trace.start, kPartsPerLine));
    if (trace.wholePiece) {
        out += fmt::format("  the whole piece is token {}: taken as is, no merges\n", trace.ids.front());
        return;
    }
    // The first merges in full, then how many more and where they end: a long piece's every
    // step would print its every part (a 5 KB word, 40 MB).
    for (size_t i = 0; i < trace.steps.size(); ++i) {
        const BpeMergeStep& s = trace.steps[i];
        if (s.parts.empty()) continue;
        if (i + 1 == trace.steps.size() && i >= BpeMergeStep::kPartsShown)
            out += fmt::format("  ... {} more merges, the last:\n", i - BpeMergeStep::kPartsShown);
        out += fmt::format("  {:>2}. {} + {} -> {} (rank {}): {}\n", i + 1, quotedBytes(s.left), quotedBytes(s.right), quotedBytes(s.left + s.right), s.rank,
                   quotedList(s.parts, kPartsPerLine));
    }
    std::string ids;
    for (int32_t id : trace.ids) ids += fmt::format(" {}", id);
    out += fmt::format("  no adjacent pair is a token any more: ids{}\n", ids);
}

}  // namespace

void appendTokenizeReport(std::string& out, const Tokenizer& tok, const std::string& text, const std::string& word) {
    const auto* tiktoken = dynamic_cast<const TiktokenTokenizer*>(&tok);
    const std::vector<int32_t> ids = tok.encode(text, false);  // text, not control tokens
    if (tiktoken) {
        const auto pieces = tiktoken->pretokenize(text);
        out += fmt::format("Pre-tokenizer: {} pieces\n  {}\n", pieces.size(), quotedList({pieces.begin(), pieces.end()}));
        std::string_view piece;
        for (std::string_view p : pieces) {
            const bool named = !word.empty() && (p == word || (p.size() == word.size() + 1 && p.front() == ' ' && p.substr(1) == word));
            if (named || (word.empty() && p.size() > piece.size())) piece = p;
            if (named) break;
        }
        if (piece.empty() && word.empty()) {
            out += fmt::format("(no piece: the text is empty)\n");
        } else if (piece.empty()) {
            throw std::invalid_argument(fmt::format("--word '{}' is not one of the pieces above", word));
        } else {
            appendMerges(out, *tiktoken, piece);
        }
    } else {
        out += fmt::format("This tokenizer is not tiktoken BPE (Llama 3's): only its ids and pieces are shown.\n");
    }
    out += fmt::format("\nToken ids: {} (a run puts the begin-of-text token {} in front)\n", ids.size(), tok.bosId());
    for (int32_t id : ids) out += fmt::format("  {:>6}  {}\n", id, quotedBytes(tok.decodeToken(id)));
}

}  // namespace llama::cli
