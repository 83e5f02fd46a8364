#include "session/prompts_file.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string_view>

#include "io/input_file.h"
#include "tokenizer/utf8.h"

namespace llama {

std::vector<std::string> readPromptsFile(const std::string& path) {
    const std::string text = readInputFile(path, "prompts file");
    std::vector<std::string> prompts;
    size_t line = 1;
    for (size_t begin = 0; begin < text.size(); ++line) {
        size_t end = text.find('\n', begin);
        if (end == std::string::npos) end = text.size();
        std::string_view row(text.data() + begin, end - begin);
        if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
        if (row.size() > kMaxPromptLineBytes)
            throw std::invalid_argument(fmt::format("prompts file {} line {}: {} bytes; a prompt line may hold at most {} bytes (no context "
                                                    "holds more tokens)",
                                                    path, line, row.size(), kMaxPromptLineBytes));
        if (const size_t nul = row.find('\0'); nul != std::string_view::npos)
            throw std::invalid_argument(fmt::format("prompts file {} line {} column {}: a NUL byte; expected text, one prompt per line", path,
                                                    line, nul + 1));
        if (const auto bad = firstInvalidUtf8(row))
            throw std::invalid_argument(fmt::format("prompts file {} line {} column {}: not UTF-8 text; expected one prompt per line", path,
                                                    line, *bad + 1));
        if (row.find_first_not_of(" \t") != std::string_view::npos) prompts.emplace_back(row);
        begin = end + 1;
    }
    if (prompts.empty()) throw std::invalid_argument(fmt::format("prompts file {}: no prompt in it (one prompt per line)", path));
    return prompts;
}

}  // namespace llama
