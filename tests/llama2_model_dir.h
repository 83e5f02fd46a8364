#pragma once
// A Llama 2 model in Meta's layout, for tests: the bundled model's weights (4096 tokens, like the
// fixture's vocabulary) with the SentencePiece tokenizer.model of fixtures/sentencepiece (trained
// with Llama 2's settings) and params.json saying vocab_size -1, as Llama 2's does.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

// One directory per process: ctest runs tests in parallel processes.
inline std::filesystem::path llama2ModelDirectory() {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("llama_spm_test_" + std::to_string(::getpid())) / "llama2";
    fs::create_directories(dir);
    fs::remove(dir / "consolidated.00.pth");
    fs::create_symlink(fs::path(ASSETS_DIR) / "model" / "consolidated.00.pth", dir / "consolidated.00.pth");
    fs::copy_file(fs::path(TEST_FIXTURES_DIR) / "sentencepiece" / "llama2_style.model", dir / "tokenizer.model",
                  fs::copy_options::overwrite_existing);
    std::ifstream in(fs::path(ASSETS_DIR) / "model" / "params.json");
    auto params = nlohmann::json::parse(in);
    params["vocab_size"] = -1;
    std::ofstream(dir / "params.json") << params.dump(2);
    return dir;
}
