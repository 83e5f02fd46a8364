#include "train/token_stream.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string_view>

#include "io/input_file.h"
#include "tokenizer/utf8.h"

namespace llama {

TokenStream readTokenStream(const std::string& path, const char* role, const Tokenizer& tokenizer) {
    const std::string text = readInputFile(path, role);
    if (text.empty()) throw std::invalid_argument(fmt::format("{} '{}' is empty; expected UTF-8 text", role, path));
    if (const auto bad = firstInvalidUtf8(text))
        throw std::invalid_argument(fmt::format("{} '{}' is not UTF-8 text: byte 0x{:02X} at byte offset {} begins no character", role, path,
                                                static_cast<unsigned char>(text[*bad]), *bad));
    const auto bos = tokenizer.specialId("<|begin_of_text|>"), eos = tokenizer.specialId("<|end_of_text|>");
    if (!bos || !eos) throw std::invalid_argument("the tokenizer has no <|begin_of_text|> and <|end_of_text|>: training needs Llama 3's special tokens");
    TokenStream stream;
    stream.bytes = int64_t(text.size());
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find("\f\n", start);
        if (end == std::string::npos) end = text.size();
        // The documents' text is ordinary text: "<|eot_id|>" written in it is not the special token.
        const std::vector<int32_t> ids = tokenizer.encode(std::string_view(text).substr(start, end - start), false);
        stream.tokens.push_back(*bos);
        stream.tokens.insert(stream.tokens.end(), ids.begin(), ids.end());
        stream.tokens.push_back(*eos);
        ++stream.documents;
        start = end + 2;
    }
    return stream;
}

}  // namespace llama
