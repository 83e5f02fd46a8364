#include "tokenizer/tokenizer_file.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "tokenizer/hf_tokenizer.h"
#include "tokenizer/sentencepiece_tokenizer.h"
#include "tokenizer/tiktoken_tokenizer.h"

namespace llama {

namespace fs = std::filesystem;

std::shared_ptr<const Tokenizer> loadTokenizerFile(const std::string& path) {
    const fs::path file(path);
    if (!fs::is_regular_file(file)) throw std::runtime_error(fmt::format("tokenizer file '{}' does not exist or is not a regular file", path));
    std::ifstream in(file, std::ios::binary);
    char first = 0;
    while (in.get(first) && std::isspace(static_cast<unsigned char>(first))) {
    }
    if (first == '{') {
        const fs::path config = file.parent_path() / "tokenizer_config.json";
        return std::make_shared<HfTokenizer>(path, fs::is_regular_file(config) ? config.string() : std::string());
    }
    if (isSentencePieceModel(path)) return std::make_shared<SentencePieceTokenizer>(path);
    return std::make_shared<TiktokenTokenizer>(path);
}

}  // namespace llama
