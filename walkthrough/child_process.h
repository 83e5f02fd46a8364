#pragma once
// Running another program (llama.cpp's benchmarks, to compare with) and reading what it printed.
#include <string>
#include <vector>

namespace llama::cli {

struct ProcessResult {
    int exitCode = 0;  // 128 + the signal when it was killed
    std::string out, err;
};

// Runs args[0] (looked up in PATH when it has no slash) without a shell, so paths need no
// quoting; stdout and stderr go to temporary files, read back when it has ended. Throws
// std::runtime_error when it cannot be started.
ProcessResult runProcess(const std::vector<std::string>& args);

// The last `count` lines of text, indented, for an error message.
std::string lastLines(const std::string& text, size_t count);

}  // namespace llama::cli
