#include "patch_trace_output.h"

#include <unistd.h>

#include <filesystem>

#include "generate/chat_template.h"
#include "generate/generator.h"
#include "generate/logit_lens.h"
#include "stages/stage_event.h"
#include "model/llama_transformer.h"
#include "trace/patch_trace.h"
#include "trace/trace_recorder.h"

namespace llama::cli {

namespace {
// One greedy token after the prompt, recorded with everything a replay shows (the residual
// stream's values among them: the patched rows).
void recordRun(const std::string& path, const Model& model, const LlamaTransformer& transformer, const std::string& prompt,
               const std::atomic<bool>* stop) {
    SamplingSettings greedy;
    greedy.temperature = 0;
    const LogitLens lens(transformer);
    TraceRecorder recorder(path, model, TraceRunInfo{prompt, 1, greedy, false}, TraceOptions{}, &lens);
    InferenceContext ctx(model.args);
    ctx.addObserver(&recorder);
    ctx.stopWhen(stop);
    Sampler sampler(greedy);
    const Prompt formatted = formatPrompt(PromptMode::Completion, "", prompt, chatFormatFor(*model.tokenizer), false);
    recorder.finish(Generator(transformer, *model.tokenizer).generate(ctx, formatted, 1, sampler, {}));
    // A run the flag cut short is not one to show beside the grid.
    if (stop && *stop) throw GenerationStopped{};
}

TraceToken token(const Tokenizer& tok, int32_t id) { return {id, tok.pieceForDisplay(id), false}; }

// Removes the runs' own traces however the writing ends.
struct TemporaryFiles {
    std::vector<std::string> paths;
    ~TemporaryFiles() {
        for (const auto& p : paths) std::filesystem::remove(p);
    }
};
}  // namespace

void writePatchingTrace(const std::string& path, const Model& model, const PatchingSetup& setup, const PatchingResult& r,
                        const std::atomic<bool>* stop) {
    PatchGrid g;
    g.site = setup.heads ? "head" : siteName(setup.site);
    g.align = alignName(setup.align);
    g.answer = token(*model.tokenizer, r.answer);
    g.wrong = token(*model.tokenizer, r.wrong);
    g.cleanDiff = r.cleanDiff;
    g.corruptDiff = r.corruptDiff;
    g.layers = int(r.patchedDiff.size());
    g.columns = int(r.patchedDiff.at(0).size());
    if (!setup.heads) g.cleanPosition = r.cleanPosition, g.corruptPosition = r.corruptPosition;
    for (const auto& row : r.patchedDiff) g.patchedDiff.insert(g.patchedDiff.end(), row.begin(), row.end());

    const auto tmp = std::filesystem::temp_directory_path() / ("llama_patch_" + std::to_string(getpid()));
    TemporaryFiles runs{{tmp.string() + "_clean.trace", tmp.string() + "_corrupt.trace"}};
    const LlamaTransformer transformer(model);
    recordRun(runs.paths[0], model, transformer, setup.clean, stop);
    recordRun(runs.paths[1], model, transformer, setup.corrupt, stop);
    writePatchTrace(path, g, runs.paths[0], runs.paths[1]);
}

}  // namespace llama::cli
