#pragma once
// A file of prompts, one a line (`batch --prompts-file`, `cvector --positive/--negative`).
#include <string>
#include <vector>

namespace llama {

// The prompts of a prompts file, one per non-empty line. Throws std::invalid_argument naming the
// file and line for a file that is not text (a NUL byte, invalid UTF-8), has a line longer than
// kMaxPromptLineBytes, or holds no prompt.
std::vector<std::string> readPromptsFile(const std::string& path);
constexpr size_t kMaxPromptLineBytes = 1 << 20;

}  // namespace llama
