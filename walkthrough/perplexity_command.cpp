#include "perplexity_command.h"

#include <fmt/format.h>

#include "io/input_file.h"
#include "generate/perplexity.h"
#include "options/checked_option.h"
#include "options/run_options.h"
#include "session/model_source.h"

namespace llama::cli {

CLI::App* addPerplexityCommand(CLI::App& app, PerplexityOptions& o) {
    CLI::App* cmd = app.add_subcommand("perplexity", "Perplexity of the model on a text file, as llama.cpp's llama-perplexity computes it");
    cmd->add_option("--model", o.model, "Model directory or .gguf file; default: the bundled model");
    options::addLoraOption(*cmd, o.lora);
    cmd->add_option("-f,--file", o.file, "The text file")->required();
    options::addInteger(*cmd, "-c,--ctx", o.ctx, {4, ModelArgs::kMaxPositions, fmt::format("a chunk of 4 to {} tokens", ModelArgs::kMaxPositions)},
                        "Tokens per chunk; the second half of each chunk is scored");
    options::addInteger(*cmd, "--chunks", o.chunks, {0, 1 << 20, "a count of chunks from 0 (all) to 1048576"}, "Score only the first N chunks (0 = all)");
    return cmd;
}

int runPerplexity(const PerplexityOptions& o) {
    // Each byte becomes at most one token id, and each id one int32: a few bytes per byte of text.
    const std::string text = readInputFile(o.file, "text", 8);
    const Model model = loadModelSource({.pathOrPreset = o.model, .lora = o.lora}, {});
    const std::vector<int32_t> ids = model.tokenizer->encode(text, false);  // the text as text: no control tokens
    const PerplexityResult r = computePerplexity(model, ids, o.ctx, o.chunks);
    fmt::print("{}: {} tokens, {} chunks of {}, {} scored per chunk (the second half of each)\n", o.file, ids.size(), r.chunks, r.ctx,
               r.scoredPerChunk);
    std::string running;
    for (size_t i = 0; i < r.runningPpl.size(); ++i) running += fmt::format("[{}]{:.4f},", i + 1, r.runningPpl[i]);
    fmt::print("{}\n", running);
    fmt::print("Final estimate: PPL = {:.4f} +/- {:.4f}\n", r.ppl, r.pplError);
    return 0;
}

}  // namespace llama::cli
