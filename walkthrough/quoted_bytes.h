#pragma once
// Token bytes as `tokenize` and `tokenizer-train` print them: readable (Tokenizer::bytesForDisplay)
// and in double quotes, so a leading space or a lone space shows: `" the"`.
#include <string>
#include <string_view>

#include "tokenizer/tokenizer.h"

namespace llama::cli {

inline std::string quotedBytes(std::string_view bytes) { return "\"" + Tokenizer::bytesForDisplay(bytes) + "\""; }

}  // namespace llama::cli
