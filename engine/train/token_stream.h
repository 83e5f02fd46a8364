#pragma once
// A text file as the token stream training reads windows from, as assets/encode_data.py makes
// it: documents separated by a line holding only a form feed ("\f\n", how assets/make_corpus.py
// ends each chapter; a file without one is one document), each encoded as
// <|begin_of_text|> text <|end_of_text|>, all concatenated.
#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace llama {

struct TokenStream {
    std::vector<int32_t> tokens;
    int64_t documents = 0;
    int64_t bytes = 0;
};

// Errors name the file: missing, empty, not UTF-8 (with the byte offset), or a tokenizer
// without the two special tokens.
TokenStream readTokenStream(const std::string& path, const char* role, const Tokenizer& tokenizer);

}  // namespace llama
