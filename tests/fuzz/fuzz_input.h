#pragma once
// What every fuzz target shares: the input as a file (most parsers take a path, as the CLI
// does), and the rule that hostile bytes may only end in a std::exception carrying a message.
// Anything else (a crash, a sanitizer report, another exception type) is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

namespace llama::fuzz {

// Rewritten on every input, in memory-backed /dev/shm when there is one.
inline std::string asFile(const uint8_t* data, size_t size, const std::string& name) {
    static const std::filesystem::path dir = [] {
        std::filesystem::path base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
        auto d = base / ("llama-fuzz-" + std::to_string(getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    const auto path = dir / name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    return path.string();
}

template <class Parse>
int expectCleanErrors(Parse&& parse) {
    try {
        parse();
    } catch (const std::exception& e) {
        if (std::string(e.what()).empty()) {
            std::fprintf(stderr, "an error without a message\n");
            std::abort();
        }
    }
    return 0;
}

}  // namespace llama::fuzz
