#include "patch_table.h"

#include <fmt/format.h>

#include <algorithm>

namespace llama::cli {

namespace {
// Layers by positions; a column is headed by its token, "clean/corrupted" where they differ.
void appendPositions(std::string& out, const PatchingResult& r, const Tokenizer& tok, const std::string& site) {
    out += fmt::format("Recovered logit difference (1 = clean, 0 = corrupted) with the {} output of one layer at one position from the clean run:\n", site);
    if (r.cleanPosition != r.corruptPosition)
        out += fmt::format("Columns pair clean position {}.. with corrupted position {}..; the longer prompt's other {} positions are not patched.\n",
                   r.cleanPosition[0], r.corruptPosition[0], std::max(r.cleanTokens.size(), r.corruptTokens.size()) - r.cleanPosition.size());
    out += fmt::format("{:>5}", "layer");
    for (size_t c = 0; c < r.cleanPosition.size(); ++c) {
        const int32_t a = r.cleanTokens[size_t(r.cleanPosition[c])], b = r.corruptTokens[size_t(r.corruptPosition[c])];
        std::string h = tok.pieceForDisplay(a);
        if (a != b) h += "/" + tok.pieceForDisplay(b);
        out += fmt::format(" {:>14}", fmt::format("\"{}\"", h.size() > 14 ? h.substr(0, 13) + "~" : h).substr(0, 14));
    }
    out += fmt::format("\n");
    for (size_t l = 0; l < r.patchedDiff.size(); ++l) {
        out += fmt::format("{:>5}", l + 1);
        for (size_t c = 0; c < r.cleanPosition.size(); ++c) out += fmt::format(" {:>14.2f}", r.recovered(int(l), int(c)));
        out += fmt::format("\n");
    }
}

void appendHeads(std::string& out, const PatchingResult& r) {
    out += fmt::format("Recovered logit difference (1 = clean, 0 = corrupted) with one attention head's output at every position from the clean run:\n");
    out += fmt::format("{:>5}", "layer");
    for (size_t h = 0; h < r.patchedDiff[0].size(); ++h) out += fmt::format(" {:>7}", fmt::format("head {}", h + 1));
    out += fmt::format("\n");
    for (size_t l = 0; l < r.patchedDiff.size(); ++l) {
        out += fmt::format("{:>5}", l + 1);
        for (size_t h = 0; h < r.patchedDiff[l].size(); ++h) out += fmt::format(" {:>7.2f}", r.recovered(int(l), int(h)));
        out += fmt::format("\n");
    }
}

}  // namespace

std::string patchTable(const PatchingResult& r, const Tokenizer& tok, const std::string& site, bool heads) {
    std::string out;
    const std::string answer = tok.pieceForDisplay(r.answer), wrong = tok.pieceForDisplay(r.wrong);
    out += fmt::format("clean:   logit \"{}\" - logit \"{}\" = {:.4f}\n", answer, wrong, r.cleanDiff);
    out += fmt::format("corrupt: logit \"{}\" - logit \"{}\" = {:.4f}\n", answer, wrong, r.corruptDiff);
    if (heads) appendHeads(out, r);
    else appendPositions(out, r, tok, site);
    return out;
}

}  // namespace llama::cli
