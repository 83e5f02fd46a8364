#include "steer/activation_patching.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "generate/chat_template.h"
#include "io/input_file.h"
#include "ml/ops.h"
#include "model/llama_transformer.h"
#include "steer/layer_capture.h"

namespace llama {

namespace {
std::vector<int32_t> promptTokens(const Model& model, const std::string& text) {
    return formatPrompt(PromptMode::Completion, "", text, chatFormatFor(*model.tokenizer), false).encode(*model.tokenizer);
}

int32_t singleToken(const Model& model, const std::string& option, const std::string& text) {
    const auto ids = model.tokenizer->encode(text, false);
    if (ids.size() != 1) {
        std::string pieces;
        for (int32_t id : ids) pieces += fmt::format(" \"{}\"", model.tokenizer->pieceForDisplay(id));
        throw std::invalid_argument(fmt::format("{} \"{}\" is {} tokens ({} ): it must be one token (mind the leading space)", option, text,
                                                ids.size(), pieces));
    }
    return ids[0];
}

// The forward passes of a grid, counted for the watch: the clean and corrupted runs, then a pass
// of the corrupted prompt per cell.
struct Passes {
    const Model& model;
    const LlamaTransformer& transformer;
    const PatchingWatch& watch;
    int64_t total = 0, done = 0;  // up to 1024 layers x 16M positions

    // The last position's logits (F32) of one pass over the tokens.
    std::vector<float> lastLogits(const std::vector<int32_t>& tokens, const WhatIf& whatIf, const std::vector<StageObserver*>& observers = {}) {
        InferenceContext ctx(model.args);
        ctx.whatIf = whatIf;
        ctx.stopWhen(watch.stop);
        for (StageObserver* o : observers) ctx.addObserver(o);
        const Tensor logits = ml::ToFloat32(transformer.Forward(ctx, Tensor::fromInt32(tokens), 0));
        const int64_t vocab = logits.dim(1);
        const float* last = logits.data<float>() + (logits.dim(0) - 1) * vocab;
        if (watch.passDone) watch.passDone(++done, total);
        return {last, last + vocab};
    }
};

}  // namespace

namespace {
// A grid keeps the clean run's rows (and, per head, the corrupted run's) of every layer, and runs one
// pass over the whole prompt at a time. Both grow with the prompt (the scores with its square), so a
// grid that cannot fit is refused before minutes of passes end in a failed allocation.
void requireGridMemory(const Model& model, const PatchingSetup& setup, int positions) {
    const int64_t available = memoryAvailable();
    if (available <= 0) return;
    const ModelArgs& a = model.args;
    const double p = positions, floatBytes = 4;
    const double kept = (setup.heads ? 2 : 1) * double(a.n_layers) * p * a.dim * floatBytes;
    const double scores = 2 * double(a.n_heads) * p * p * floatBytes;  // the scores and their softmax
    const double pass = scores + 2 * p * a.vocab_size * floatBytes + 3 * p * a.ffnHiddenDim() * floatBytes + double(a.runBytes());
    const double weights = double(model.totalBytes());
    if (kept + pass + weights > double(available))
        throw std::invalid_argument(fmt::format("patching {} positions keeps {:.1f} GB of activations, and each pass over the prompt needs {:.1f} GB "
                                                "(its attention scores {:.1f} GB): with the model's {:.1f} GB that is more than the {:.1f} GB of "
                                                "memory this process may use. Shorter prompts need less: the scores grow with the square of "
                                                "the length",
                                                positions, kept / 1e9, pass / 1e9, scores / 1e9, weights / 1e9, double(available) / 1e9));
}
}  // namespace

double PatchingResult::recovered(int layer, int column) const {
    return (patchedDiff[size_t(layer)][size_t(column)] - corruptDiff) / (cleanDiff - corruptDiff);
}

namespace {
// Head `head`'s share of layer `layer`'s attention output when its output changes from the
// corrupted run's to the clean run's at every paired position (unpaired ones keep the corrupted
// run's): attn_wo times that change, [positions * Dim] over the corrupted prompt's positions.
std::vector<float> headShare(const Model& model, const LlamaTransformer& transformer, const LayerCapture& clean, const LayerCapture& corrupt,
                             int layer, int head, int positions, const PatchingResult& pairs) {
    const int headDim = model.args.headDim(), width = clean.dim();
    Tensor change({positions, width}, DType::F32);
    float* c = change.mutableData<float>();
    std::fill(c, c + change.numel(), 0.0f);
    for (size_t k = 0; k < pairs.corruptPosition.size(); ++k) {
        const int p = pairs.corruptPosition[k];
        const auto a = clean.row(layer, pairs.cleanPosition[k]), b = corrupt.row(layer, p);
        for (int i = head * headDim; i < (head + 1) * headDim; ++i) c[int64_t(p) * width + i] = a[size_t(i)] - b[size_t(i)];
    }
    const Tensor share = ml::LinearTransformation(change, transformer.Layers[size_t(layer)].attention.attn_wo);
    return {share.data<float>(), share.data<float>() + share.numel()};
}
}  // namespace

PatchingResult runActivationPatching(const Model& model, const PatchingSetup& setup, const PatchingWatch& watch) {
    PatchingResult r;
    r.cleanTokens = promptTokens(model, setup.clean);
    r.corruptTokens = promptTokens(model, setup.corrupt);
    const int nClean = int(r.cleanTokens.size()), nCorrupt = int(r.corruptTokens.size());
    if (nClean != nCorrupt && setup.align == PatchingSetup::Align::Same)
        throw std::invalid_argument(fmt::format("the clean prompt is {} tokens and the corrupted one {}: patching pairs their positions one to one, "
                                                "so they must have the same number of tokens (`tokenize` shows them), or say how they line "
                                                "up with --align start|end",
                                                nClean, nCorrupt));
    if (std::max(nClean, nCorrupt) >= model.args.max_seq_len)
        throw std::invalid_argument(fmt::format("the prompts are {} and {} tokens: more than the context of {}", nClean, nCorrupt, model.args.max_seq_len));
    requireGridMemory(model, setup, std::max(nClean, nCorrupt));
    const int paired = std::min(nClean, nCorrupt);
    for (int k = 0; k < paired; ++k) {
        const bool end = setup.align == PatchingSetup::Align::End;
        r.cleanPosition.push_back(end ? nClean - paired + k : k);
        r.corruptPosition.push_back(end ? nCorrupt - paired + k : k);
    }
    r.answer = singleToken(model, "--answer", setup.answer);
    const LlamaTransformer transformer(model);
    const int layers = model.args.n_layers;
    LayerCapture capture(setup.site == ActivationPatch::Site::BlockOutput ? StageId::FfnResidual : StageId::AttentionWo, "output", layers);
    LayerCapture cleanHeads(StageId::AttentionReshape, "output", layers), corruptHeads(StageId::AttentionReshape, "output", layers);
    Passes passes{model, transformer, watch, 2 + int64_t(layers) * (setup.heads ? model.args.n_heads : paired)};
    if (watch.passDone) watch.passDone(0, passes.total);
    // Per position the clean run's rows at the site; per head both runs' heads' outputs.
    const auto clean = passes.lastLogits(r.cleanTokens, {}, setup.heads ? std::vector<StageObserver*>{&cleanHeads} : std::vector<StageObserver*>{&capture});
    const auto corrupt = passes.lastLogits(r.corruptTokens, {}, setup.heads ? std::vector<StageObserver*>{&corruptHeads} : std::vector<StageObserver*>{});
    if (!setup.wrong.empty()) {
        r.wrong = singleToken(model, "--wrong", setup.wrong);
    } else {
        r.wrong = int32_t(std::max_element(corrupt.begin(), corrupt.end()) - corrupt.begin());
        if (r.wrong == r.answer)
            throw std::invalid_argument(fmt::format("the corrupted prompt's most likely token is the answer \"{}\" too: name the token it should "
                                                    "compete with (--wrong)",
                                                    setup.answer));
    }
    if (r.wrong == r.answer) throw std::invalid_argument("--answer and --wrong are the same token");
    auto diff = [&](const std::vector<float>& l) { return double(l[size_t(r.answer)]) - double(l[size_t(r.wrong)]); };
    r.cleanDiff = diff(clean);
    r.corruptDiff = diff(corrupt);
    if (std::fabs(r.cleanDiff - r.corruptDiff) < 1e-6)
        throw std::invalid_argument(fmt::format("the clean and corrupted runs give the same logit difference ({:.4f}): there is nothing to recover",
                                                r.cleanDiff));
    const int positions = nCorrupt;
    if (setup.heads) {
        r.patchedDiff.assign(size_t(layers), std::vector<double>(size_t(model.args.n_heads)));
        for (int layer = 0; layer < layers; ++layer)
            for (int head = 0; head < model.args.n_heads; ++head) {
                WhatIf w;
                w.patch = std::make_shared<const ActivationPatch>(ActivationPatch{ActivationPatch::Site::AttentionOutput, layer, -1,
                                                                                  headShare(model, transformer, cleanHeads, corruptHeads, layer, head, positions, r),
                                                                                  "the clean prompt", true, head});
                r.patchedDiff[size_t(layer)][size_t(head)] = diff(passes.lastLogits(r.corruptTokens, w));
            }
        return r;
    }
    r.patchedDiff.assign(size_t(layers), std::vector<double>(size_t(paired)));
    for (int layer = 0; layer < layers; ++layer)
        for (int k = 0; k < paired; ++k) {
            WhatIf w;
            w.patch = std::make_shared<const ActivationPatch>(
                ActivationPatch{setup.site, layer, r.corruptPosition[size_t(k)], capture.row(layer, r.cleanPosition[size_t(k)]), "the clean prompt"});
            r.patchedDiff[size_t(layer)][size_t(k)] = diff(passes.lastLogits(r.corruptTokens, w));
        }
    return r;
}

const char* alignName(PatchingSetup::Align align) {
    switch (align) {
        case PatchingSetup::Align::Start: return "start";
        case PatchingSetup::Align::End: return "end";
        case PatchingSetup::Align::Same: break;
    }
    return "same";
}

PatchingSetup::Align alignFromName(const std::string& name) {
    for (auto a : {PatchingSetup::Align::Same, PatchingSetup::Align::Start, PatchingSetup::Align::End})
        if (name == alignName(a)) return a;
    throw std::invalid_argument("an alignment is same, start or end, not \"" + name + "\"");
}

}  // namespace llama
