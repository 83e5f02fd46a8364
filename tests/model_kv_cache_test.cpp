#include <catch2/catch.hpp>
#include <cmath>

#include "generate/generator.h"
#include "ml/ops.h"
#include "model/synthetic.h"

using namespace llama;

// Prefilling N tokens and then decoding one at a time through the KV cache must give the same
// logits as running the whole sequence at once: the cache is an optimisation, not a change.
TEST_CASE("KV cache: prefill then decode equals a full recompute", "[model][kvcache]") {
    Model model = makeSyntheticModel("tiny", 11, false);
    LlamaTransformer transformer(model);
    const std::vector<int32_t> ids = {5, 77, 300, 12, 9, 450, 33, 128, 64, 2};
    const int prefill = 6;
    const int64_t vocab = model.args.vocab_size;

    InferenceContext full(model.args);
    Tensor expected = transformer.Forward(full, Tensor::fromInt32(ids), 0);  // [10, vocab]

    InferenceContext cached(model.args);
    std::vector<Tensor> rows;
    Tensor first = transformer.Forward(cached, Tensor::fromInt32({ids.begin(), ids.begin() + prefill}), 0);
    for (int i = 0; i < prefill; ++i) rows.push_back(ml::Slice(first, i, i + 1));
    for (int pos = prefill; pos < int(ids.size()); ++pos) rows.push_back(transformer.Forward(cached, Tensor::fromInt32({ids[pos]}), pos));

    double maxDiff = 0, maxAbs = 0;
    for (int i = 0; i < int(ids.size()); ++i)
        for (int64_t v = 0; v < vocab; ++v) {
            double e = expected.floatAt(int64_t(i) * vocab + v);
            maxDiff = std::max(maxDiff, std::abs(e - rows[i].floatAt(v)));
            maxAbs = std::max(maxAbs, std::abs(e));
        }
    INFO("max |logit| " << maxAbs << ", max difference " << maxDiff);
    // Every row is computed by the same kernels in the same order whether it arrives alone or
    // in a batch, so the two paths agree exactly.
    REQUIRE(maxDiff == 0.0);
}

TEST_CASE("a dry run produces shapes only, through the whole model", "[model][dryrun]") {
    Model model = makeSyntheticModel("llama3.1-8b", 1, true);
    LlamaTransformer transformer(model);
    InferenceContext ctx(model.args, true);
    Tensor logits = transformer.Forward(ctx, Tensor::fromInt32({1, 2, 3}), 0);
    REQUIRE_FALSE(logits.hasData());
    REQUIRE(logits.shape() == Shape{3, 128256});
    REQUIRE(logits.dtype() == DType::F32);
}
