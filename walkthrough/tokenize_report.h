#pragma once
// What `tokenize` prints: the pre-tokenizer's pieces, one piece's BPE merges step by step, then the
// ids. The live page prints the same for a `tokenize` command run in the tab (web/module/live_views.cpp).
#include <string>

#include "tokenizer/tokenizer.h"

namespace llama::cli {

// Appends to `out`; `word`: the piece whose merges are shown ("": the longest). Throws
// std::invalid_argument when `word` is not one of the pieces, with the pieces already in `out`.
void appendTokenizeReport(std::string& out, const Tokenizer& tok, const std::string& text, const std::string& word);

}  // namespace llama::cli
