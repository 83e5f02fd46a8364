#pragma once
// `llama-walkthrough tokenizer-train --text FILE --out tokenizer.model`: learns a byte-level BPE
// (tokenizer/bpe_trainer.h) and writes it in tiktoken's format; on the bundled corpus it makes
// assets/model/tokenizer.model again, byte for byte. The merges can be shown and stepped through.
#include <CLI/CLI.hpp>

#include <string>

namespace llama::cli {

struct TokenizerTrainOptions {
    std::string text;
    std::string out;
    int vocab = 3840;  // the bundled model's: 4096 ids minus Llama 3's 256 special tokens
    bool force = false;
    int showMerges = 0;
    bool step = false;
};

CLI::App* addTokenizerTrainCommand(CLI::App& app, TokenizerTrainOptions& options);
int runTokenizerTrain(const TokenizerTrainOptions& options);

}  // namespace llama::cli
