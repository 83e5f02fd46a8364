#include "tokenize_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "quoted_bytes.h"
#include "session/model_source.h"
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

void printMerges(const TiktokenTokenizer& tok, std::string_view piece) {
    const BpeTrace trace = tok.traceMerges(piece);
    fmt::print("\nBPE merges for {}:\n  start: {}\n", quotedBytes(piece), quotedList(trace.start, kPartsPerLine));
    if (trace.wholePiece) {
        fmt::print("  the whole piece is token {}: taken as is, no merges\n", trace.ids.front());
        return;
    }
    // The first merges in full, then how many more and where they end: a long piece's every
    // step would print its every part (a 5 KB word, 40 MB).
    for (size_t i = 0; i < trace.steps.size(); ++i) {
        const BpeMergeStep& s = trace.steps[i];
        if (s.parts.empty()) continue;
        if (i + 1 == trace.steps.size() && i >= BpeMergeStep::kPartsShown)
            fmt::print("  ... {} more merges, the last:\n", i - BpeMergeStep::kPartsShown);
        fmt::print("  {:>2}. {} + {} -> {} (rank {}): {}\n", i + 1, quotedBytes(s.left), quotedBytes(s.right), quotedBytes(s.left + s.right), s.rank,
                   quotedList(s.parts, kPartsPerLine));
    }
    std::string ids;
    for (int32_t id : trace.ids) ids += fmt::format(" {}", id);
    fmt::print("  no adjacent pair is a token any more: ids{}\n", ids);
}

}  // namespace

CLI::App* addTokenizeCommand(CLI::App& app, TokenizeOptions& o) {
    CLI::App* cmd = app.add_subcommand("tokenize", "Show how text becomes token ids: pre-tokenizer pieces, BPE merges, ids");
    cmd->add_option("text", o.text, "The text to tokenize")->required();
    cmd->add_option("--model", o.model, "Model whose tokenizer is used; default: the bundled model");
    cmd->add_option("--word", o.word, "The piece whose BPE merges are shown (default: the longest piece)");
    return cmd;
}

int runTokenize(const TokenizeOptions& o) {
    // Only the tokenizer is needed: a shapes-only load reads no weights.
    const Model model = loadModelSource({ModelSource::Kind::Files, o.model}, {.shapesOnly = true});
    const Tokenizer& tok = *model.tokenizer;
    const auto* tiktoken = dynamic_cast<const TiktokenTokenizer*>(&tok);
    const std::vector<int32_t> ids = tok.encode(o.text, false);  // text, not control tokens
    if (tiktoken) {
        const auto pieces = tiktoken->pretokenize(o.text);
        fmt::print("Pre-tokenizer: {} pieces\n  {}\n", pieces.size(), quotedList({pieces.begin(), pieces.end()}));
        std::string_view word;
        for (std::string_view p : pieces) {
            const bool named = !o.word.empty() && (p == o.word || (p.size() == o.word.size() + 1 && p.front() == ' ' && p.substr(1) == o.word));
            if (named || (o.word.empty() && p.size() > word.size())) word = p;
            if (named) break;
        }
        if (word.empty() && o.word.empty()) {
            fmt::print("(no piece: the text is empty)\n");
        } else if (word.empty()) {
            throw std::invalid_argument(fmt::format("--word '{}' is not one of the pieces above", o.word));
        } else {
            printMerges(*tiktoken, word);
        }
    } else {
        fmt::print("This tokenizer is not tiktoken BPE (Llama 3's): only its ids and pieces are shown.\n");
    }
    fmt::print("\nToken ids: {} (a run puts the begin-of-text token {} in front)\n", ids.size(), tok.bosId());
    for (int32_t id : ids) fmt::print("  {:>6}  {}\n", id, quotedBytes(tok.decodeToken(id)));
    return 0;
}

}  // namespace llama::cli
