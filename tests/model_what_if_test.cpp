// The what-if switches on the bundled model: each changes what it says it changes, and a default
// WhatIf is the model itself (the golden tests run without one).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "session/model_source.h"
#include "generate/generator.h"
#include "ml/ops.h"
#include "session/session.h"
#include "bundled_model.h"

using namespace llama;

namespace {

const std::vector<int32_t>& promptTokens() {
    static std::vector<int32_t> tokens = bundledModel().tokenizer->encode("<|begin_of_text|>In the beginning God created", true);
    return tokens;
}

struct Watch : StageObserver {
    std::function<void(const StageEvent&)> fn;
    void onStage(const StageEvent& e) override { fn(e); }
};

// One prefill of the prompt with `whatIf`; `watch` sees every stage.
Tensor prefill(const WhatIf& whatIf, std::function<void(const StageEvent&)> watch = [](const StageEvent&) {}) {
    const Model& model = bundledModel();
    LlamaTransformer transformer(model, whatIf);
    InferenceContext ctx(model.args);
    ctx.whatIf = whatIf;
    Watch w;
    w.fn = std::move(watch);
    ctx.addObserver(&w);
    return transformer.Forward(ctx, Tensor::fromInt32(promptTokens()), 0);
}

float maxDifference(const Tensor& a, const Tensor& b, int64_t row) {
    REQUIRE(a.shape() == b.shape());
    float d = 0;
    for (int64_t i = row * a.dim(1); i < (row + 1) * a.dim(1); ++i) d = std::max(d, std::fabs(a.floatAt(i) - b.floatAt(i)));
    return d;
}
}  // namespace

TEST_CASE("what-if: the default is the model itself", "[whatif]") {
    WhatIf none;
    CHECK_FALSE(none.any());
    CHECK(none.describe().empty());
    const Tensor plain = [] {
        InferenceContext ctx(bundledModel().args);
        return LlamaTransformer(bundledModel()).Forward(ctx, Tensor::fromInt32(promptTokens()), 0);
    }();
    const Tensor withDefault = prefill(none);
    for (int64_t row = 0; row < plain.dim(0); ++row) CHECK(maxDifference(plain, withDefault, row) == 0);
}

TEST_CASE("what-if --no-mask: earlier positions see later tokens", "[whatif]") {
    const Tensor model = prefill({});
    bool maskAbsent = false;
    const Tensor unmasked = prefill(WhatIf{.noMask = true}, [&](const StageEvent& e) {
        if (e.stage == StageId::Mask) maskAbsent = e.tensors.empty();
        if (e.stage == StageId::ScoresMask) CHECK(e.skipped);
    });
    CHECK(maskAbsent);
    // Position 0 attended to itself alone; now it attends to the whole prompt.
    CHECK(maxDifference(model, unmasked, 0) > 0.1f);
}

TEST_CASE("what-if --rope-theta and --no-rope: position 0 is never rotated, later ones change", "[whatif]") {
    const Tensor model = prefill({});
    const int64_t last = model.dim(0) - 1;
    // The model's own theta through the switch reproduces the model.
    const Tensor sameTheta = prefill(WhatIf{.ropeTheta = bundledModel().args.rope_theta});
    CHECK(maxDifference(model, sameTheta, last) == 0);

    const Tensor theta10 = prefill(WhatIf{.ropeTheta = 10.0});
    CHECK(maxDifference(model, theta10, 0) == 0);  // angle 0: a rotation by 1
    CHECK(maxDifference(model, theta10, last) > 0.1f);

    int skippedRotations = 0;
    const Tensor noRope = prefill(WhatIf{.noRope = true}, [&](const StageEvent& e) {
        if (e.stage == StageId::Rotary && e.skipped) ++skippedRotations;
    });
    CHECK(skippedRotations == bundledModel().args.n_layers);
    CHECK(maxDifference(model, noRope, 0) == 0);
    CHECK(maxDifference(model, noRope, last) > 0.1f);
}

TEST_CASE("what-if --ablate-head: that head's output is zero, the others untouched", "[whatif]") {
    const int layer = 1, head = 3;
    std::vector<Tensor> original, ablated;
    auto keep = [&](std::vector<Tensor>& into) {
        return [&into](const StageEvent& e) {
            if (e.stage == StageId::AttentionValues && e.layer == layer) into.push_back(e.tensors[0].tensor->clone());
        };
    };
    const Tensor model = prefill({}, keep(original));
    WhatIf w;
    w.ablateHeads = {{layer, head}};
    const Tensor experiment = prefill(w, keep(ablated));
    REQUIRE(original.size() == 1);
    REQUIRE(ablated.size() == 1);
    const Tensor& a = original[0];  // [N_Heads, seqLen, HeadDim]
    const int64_t perHead = a.numel() / a.dim(0);
    float before = 0, after = 0, others = 0;
    for (int64_t h = 0; h < a.dim(0); ++h)
        for (int64_t i = h * perHead; i < (h + 1) * perHead; ++i) {
            if (h == head) before = std::max(before, std::fabs(a.floatAt(i))), after = std::max(after, std::fabs(ablated[0].floatAt(i)));
            else others = std::max(others, std::fabs(a.floatAt(i) - ablated[0].floatAt(i)));
        }
    CHECK(before > 0);
    CHECK(after == 0);
    CHECK(others == 0);
    CHECK(maxDifference(model, experiment, model.dim(0) - 1) > 0);
}

TEST_CASE("what-if --skip-layer: the block is bypassed and says so", "[whatif]") {
    const int skipped = 2;
    int stagesInSkipped = 0;
    bool blockSkipped = false;
    const Tensor model = prefill({});
    const Tensor experiment = prefill(WhatIf{.skipLayers = {skipped}}, [&](const StageEvent& e) {
        if (e.layer != skipped) return;
        ++stagesInSkipped;
        blockSkipped = e.stage == StageId::BlockForward && e.skipped &&
                       e.message.find("skipped for layer: 3 / 8") != std::string::npos;
    });
    CHECK(stagesInSkipped == 1);  // the block's mark, nothing inside it
    CHECK(blockSkipped);
    CHECK(maxDifference(model, experiment, model.dim(0) - 1) > 0.1f);
}

TEST_CASE("what-if --no-kv-cache: every step recomputes from position 0, with the same tokens", "[whatif]") {
    Session session;
    session.load({ModelSource::Kind::Files, std::string(ASSETS_DIR) + "/model"});
    session.settings().maxTokens = 5;
    const GenerationResult cached = session.run();
    std::vector<std::pair<int, int64_t>> passes;  // startPos, tokens per pass
    Watch w;
    w.fn = [&](const StageEvent& e) {
        if (e.stage == StageId::SequenceLoop) passes.emplace_back(e.startPos, e.tensors[0].tensor->numel());
    };
    session.addObserver(&w);
    session.settings().whatIf.noKvCache = true;
    const GenerationResult recomputed = session.run();
    CHECK(recomputed.generatedTokens == cached.generatedTokens);
    REQUIRE(passes.size() == 5);
    for (size_t i = 0; i < passes.size(); ++i) {
        CHECK(passes[i].first == 0);
        CHECK(passes[i].second == int64_t(cached.promptTokens.size() + i));
    }
}

TEST_CASE("what-if: switches outside the model are refused by name", "[whatif][hostile]") {
    const ModelArgs& a = bundledModel().args;
    CHECK_THROWS_WITH(WhatIf{.skipLayers = {8}}.validate(a.n_layers, a.n_heads), Catch::Contains("--skip-layer: a layer from 1 to 8, got 9"));
    WhatIf heads;
    heads.ablateHeads = {{0, 8}};
    CHECK_THROWS_WITH(heads.validate(a.n_layers, a.n_heads), Catch::Contains("--ablate-head: a LAYER:HEAD with a layer from 1 to 8 and a head from 1 to 8, got 1:9"));
    CHECK_THROWS_WITH(WhatIf{.ropeTheta = 0.5}.validate(a.n_layers, a.n_heads), Catch::Contains("--rope-theta: a base frequency above 1, got 0.5"));
    WhatIf all{.noMask = true, .noKvCache = true, .ropeTheta = 10.0, .noRope = true, .ablateHeads = {{1, 2}}, .skipLayers = {3}};
    CHECK(all.describe() == "--no-mask --no-kv-cache --rope-theta 10 --no-rope --ablate-head 2:3 --skip-layer 4");
}
