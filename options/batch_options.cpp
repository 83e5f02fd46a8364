#include "batch_options.h"

#include <stdexcept>

#include "checked_option.h"
#include "run_options.h"

namespace llama::options {

CLI::Option* addBatchOptions(CLI::App& app, BatchSettings& b, GenerationSettings& g) {
    CLI::Option* prompt = app.add_option("-p,--prompt", b.prompts, "A prompt; repeat for several sequences");
    app.add_option("--system", g.system,
                   "Text before every prompt (chat mode: the system prompt); the tokens all prompts share are decoded once and "
                   "copied to each sequence (seq_cp)");
    app.add_flag_callback("--chat", [&g] { g.mode = PromptMode::Chat; }, "Use the model's instruct chat template");
    addSamplingOptions(app, g);
    addInteger(app, "--parallel", b.parallel, {1, 256, "a number of sequences from 1 to 256"},
               "Sequences decoded together (llama.cpp's -np); further prompts wait and join as others finish");
    addUbatchOption(app, b.ubatch);
    app.add_flag("--context-shift", b.contextShift,
                 "When a sequence fills its share of the cells, free half of them after --keep and shift the rest back");
    addInteger(app, "--keep", b.keep, {0, ModelArgs::kMaxPositions, "a token count"},
               "Positions a context shift keeps at each sequence's start (the shared prefix is always kept)");
    return prompt;
}

void checkBatch(const BatchSettings& b) {
    if (b.prompts.empty()) throw std::invalid_argument("batch: give prompts with -p (repeatable) or --prompts-file");
    if (b.keep > 0 && !b.contextShift) throw std::invalid_argument("--keep applies to --context-shift: give both or neither");
}

}  // namespace llama::options
