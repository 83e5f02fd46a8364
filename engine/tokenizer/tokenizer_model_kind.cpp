// Which tokenizer a tokenizer.model is, decided without SentencePiece (the browser build has none).
#include <fstream>
#include <regex>

#include "tokenizer/sentencepiece_tokenizer.h"

namespace llama {

bool isSentencePieceModel(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string firstLine;
    std::getline(in, firstLine);
    static const std::regex tiktokenLine(R"([A-Za-z0-9+/=]+ [0-9]+\r?)");
    return !std::regex_match(firstLine, tiktokenLine);
}

}  // namespace llama
