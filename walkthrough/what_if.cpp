#include "what_if.h"

#include <fmt/format.h>

#include <cmath>

namespace llama::cli {

void addWhatIfOptions(CLI::App& app, WhatIf& w) {
    const char* group = "What-if experiments (recorded in the debug log, the trace and the viewer)";
    app.add_flag("--no-mask", w.noMask, "Prefill without the causal mask: every token also sees the tokens after it")->group(group);
    app.add_flag("--no-kv-cache", w.noKvCache,
                 "Recompute the whole sequence at every step instead of reading the KV cache; prints both timings and "
                 "whether the logits are equal")
        ->group(group);
    app.add_option_function<double>("--rope-theta", [&w](double theta) { w.ropeTheta = theta; },
                                    "RoPE base frequency instead of the model's rope_theta")
        ->check(CLI::Range(1.0 + 1e-9, 1e12))
        ->group(group);
    app.add_flag("--no-rope", w.noRope, "Do not rotate queries and keys: attention loses all position information")->group(group);
    app.add_option_function<std::vector<std::string>>(
           "--ablate-head",
           [&w](const std::vector<std::string>& items) {
               for (const auto& item : items) w.ablateHeads.insert(parseLayerHead(item));
           },
           "Zero the output of attention head HEAD in layer LAYER (1-based LAYER:HEAD; repeatable)")
        ->group(group);
    app.add_option_function<std::vector<int>>(
           "--skip-layer",
           [&w](const std::vector<int>& layers) {
               for (int l : layers) w.skipLayers.insert(l - 1);
           },
           "Bypass transformer block L (1-based; repeatable): the residual stream passes through unchanged")
        ->check(CLI::PositiveNumber)
        ->group(group);
    app.add_option_function<std::string>(
           "--compute-dtype", [&w](const std::string& word) { w.computeDType = parseComputeDType(word); },
           "Compute activations, scores, softmax and logits in bf16 or f32 instead of the dtype the weights choose (BF16 "
           "weights: bf16, with the walkthrough's roundings; any other: f32)")
        ->check(CLI::IsMember({"bf16", "f32"}, CLI::ignore_case))
        ->group(group);
}

void StepLogits::onStage(const StageEvent& event) {
    if (event.stage != StageId::Sample) return;
    for (const auto& t : event.tensors)
        if (t.name == "logits" && t.tensor->hasData()) logits_.push_back(t.tensor->clone());
}

LogitsComparison compareStepLogits(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
    LogitsComparison c;
    c.sameSteps = a.size() == b.size();
    for (size_t step = 0; step < std::min(a.size(), b.size()); ++step) {
        if (a[step].shape() != b[step].shape()) {
            c.sameSteps = false;
            continue;
        }
        for (int64_t i = 0; i < a[step].numel(); ++i) {
            const float d = std::fabs(a[step].floatAt(i) - b[step].floatAt(i));
            if (d > c.maxDifference || std::isnan(d)) c.maxDifference = d, c.worstStep = int(step);
        }
    }
    return c;
}

void reportKvCacheExperiment(Session& session, const GenerationResult& without, const StepLogits& withoutLogits) {
    StepLogits withLogits;
    session.clearObservers();
    session.addObserver(&withLogits);
    GenerationSettings& s = session.settings();
    s.whatIf.noKvCache = false;
    const GenerationResult with = session.run();
    s.whatIf.noKvCache = true;
    auto perToken = [](const GenerationResult& r) { return r.decodeSteps ? 1000 * r.decodeSeconds / r.decodeSteps : 0.0; };
    fmt::print("What-if --no-kv-cache: {} decode steps took {:.3f} s ({:.2f} ms per token) recomputing the whole sequence; "
               "with the KV cache they take {:.3f} s ({:.2f} ms per token).\n",
               without.decodeSteps, without.decodeSeconds, perToken(without), with.decodeSeconds, perToken(with));
    const LogitsComparison c = compareStepLogits(withoutLogits.logits(), withLogits.logits());
    if (!c.sameSteps || without.generatedTokens != with.generatedTokens)
        fmt::print("The two runs differ: {} vs {} steps, generated tokens {}.\n", withoutLogits.logits().size(), withLogits.logits().size(),
                   without.generatedTokens == with.generatedTokens ? "equal" : "differ");
    else if (c.maxDifference == 0)
        fmt::print("Logits of all {} steps are equal: the cache changes the cost, not the result.\n", withLogits.logits().size());
    else
        fmt::print("Logits differ slightly: the largest difference is {:.6g} (step {}). The recomputed steps multiply matrices of many "
                   "rows where the cached ones multiply one row, and those kernels round in another order; the generated tokens are "
                   "the same.\n",
                   c.maxDifference, c.worstStep);
}

}  // namespace llama::cli
