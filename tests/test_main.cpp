// The suite's entry point. LLAMA_TEST_THREADS=N gives the shared pool N compute threads before any
// test runs (tests/CMakeLists.txt runs the bit-identity tests on one thread and on three: the
// pool splits outputs, never a sum, so the bits must not change).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

#include "ml/thread_pool.h"

int main(int argc, char* argv[]) {
    if (const char* threads = std::getenv("LLAMA_TEST_THREADS")) llama::ml::ThreadPool::configureGlobal(std::atoi(threads));
    return Catch::Session().run(argc, argv);
}
