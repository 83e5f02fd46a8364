// Which tokenizer a tokenizer.model is, decided without SentencePiece (the browser build has none).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>

#include "tokenizer/sentencepiece_tokenizer.h"

namespace llama {

bool isSentencePieceModel(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    // A tiktoken file's first line is "BASE64 RANK" (plain scanning: a long first line must not
    // cost std::regex's per-character recursion); only its first 4 KB are read.
    std::string firstLine(4096, '\0');
    in.getline(firstLine.data(), std::streamsize(firstLine.size()));
    firstLine.resize(std::strlen(firstLine.c_str()));  // getline ends what it read with a NUL
    if (!firstLine.empty() && firstLine.back() == '\r') firstLine.pop_back();
    const size_t space = firstLine.find(' ');
    const auto isBase64 = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '='; };
    const bool tiktoken = space != std::string::npos && space > 0 && space + 1 < firstLine.size() &&
                          std::all_of(firstLine.begin(), firstLine.begin() + std::ptrdiff_t(space), isBase64) &&
                          firstLine.find_first_not_of("0123456789", space + 1) == std::string::npos;
    return !tiktoken;
}

}  // namespace llama
