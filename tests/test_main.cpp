// The entry point of the engine's and the viewer's test programs.
// - LLAMA_TEST_THREADS=N gives the shared pool N compute threads before any test runs
//   (tests/CMakeLists.txt runs the bit-identity tests on one thread and on three: the pool splits
//   outputs, never a sum, so the bits must not change).
// - Each process keeps its scratch files in a folder of its own, removed when it ends: the tests
//   name theirs under temp_directory_path(), and the program runs they start inherit TMPDIR, so
//   nothing is left in the machine's temporary folder however a test builds its names.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include "ml/thread_pool.h"

namespace {
struct OwnTempFolder {
    std::filesystem::path path;
    OwnTempFolder() {
        std::string pattern = (std::filesystem::temp_directory_path() / "llama-tests-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) return;  // tests then use the machine's folder
        path = pattern;
        ::setenv("TMPDIR", pattern.c_str(), 1);
    }
    ~OwnTempFolder() {
        std::error_code ignored;
        if (!path.empty()) std::filesystem::remove_all(path, ignored);
    }
};
}  // namespace

int main(int argc, char* argv[]) {
    if (const char* threads = std::getenv("LLAMA_TEST_THREADS")) llama::ml::ThreadPool::configureGlobal(std::atoi(threads));
    const OwnTempFolder scratch;
    return Catch::Session().run(argc, argv);
}
