#include <catch2/catch.hpp>
#include <limits>

#include "ml/ops.h"
#include "model/llama_attention.h"
#include "model/llama_transformer.h"
#include "model/synthetic.h"

using namespace llama;

TEST_CASE("attentionRepeatKV copies each KV head N_Rep times in order", "[model][repeatkv]") {
    const int seq = 3, kvHeads = 2, headDim = 4, nRep = 4;
    Tensor x({seq, kvHeads, headDim}, DType::BF16);
    auto* p = x.mutableData<BFloat16>();
    for (int i = 0; i < x.numel(); ++i) p[i] = BFloat16(float(i));
    Tensor y = attentionRepeatKV(x, nRep);
    REQUIRE(y.shape() == Shape{seq, kvHeads * nRep, headDim});
    for (int s = 0; s < seq; ++s)
        for (int h = 0; h < kvHeads * nRep; ++h)
            for (int d = 0; d < headDim; ++d)
                REQUIRE(y.floatAt((int64_t(s) * kvHeads * nRep + h) * headDim + d) ==
                        x.floatAt((int64_t(s) * kvHeads + h / nRep) * headDim + d));
    // N_Rep 1 is a no-op that returns the same tensor.
    REQUIRE(attentionRepeatKV(x, 1).rawData() == x.rawData());
    // Dry run: shapes only.
    REQUIRE(attentionRepeatKV(Tensor::shapeOnly({5, 8, 128}, DType::BF16), 4).shape() == Shape{5, 32, 128});
}

TEST_CASE("the causal mask is 0 on and below the diagonal and -inf above", "[model][mask]") {
    // As LlamaTransformer::prepare builds it, also with cached positions before the prompt.
    for (int startPos : {0, 3}) {
        const int seq = 4;
        Tensor mask = ml::TriangularUpper(ml::Full({seq, startPos + seq}, DType::BF16, -std::numeric_limits<float>::infinity()),
                                          startPos + 1);
        for (int r = 0; r < seq; ++r)
            for (int c = 0; c < startPos + seq; ++c) {
                float v = mask.floatAt(int64_t(r) * (startPos + seq) + c);
                if (c <= startPos + r) REQUIRE(v == 0.0f);
                else REQUIRE(v == -std::numeric_limits<float>::infinity());
            }
    }
}

TEST_CASE("observers see the transposed keys and values as row-major copies", "[model][transpose]") {
    // The engine keeps Transpose's results as strided views; a stage mark hands observers
    // row-major tensors holding the same elements, as the walkthrough's copies would.
    struct Check : StageObserver {
        int transposes = 0;
        void onStage(const StageEvent& event) override {
            for (const StageField& field : event.fields)
                if (const auto* t = std::get_if<const Tensor*>(&field.value); t && *t) REQUIRE((*t)->isContiguous());
            if (event.stage != StageId::Transposes) return;
            ++transposes;
            const Tensor& keys = *event.tensorField("keys");  // [N_Heads, HeadDim, positions]
            const Tensor& values = *event.tensorField("values");  // [N_Heads, positions, HeadDim]
            REQUIRE(keys.dim(0) == values.dim(0));
            REQUIRE(keys.dim(1) == values.dim(2));
            REQUIRE(keys.dim(2) == values.dim(1));
            lastKeys = keys.clone();
        }
        Tensor lastKeys;
    } check;
    Model model = makeSyntheticModel("tiny", 7, false);
    LlamaTransformer transformer(model);
    InferenceContext ctx(model.args);
    ctx.addObserver(&check);
    transformer.Forward(ctx, Tensor::fromInt32({3, 1, 4, 1, 5}), 0);
    REQUIRE(check.transposes == model.args.n_layers);
    // The last layer's keys: cache row (position p, KV head h / N_Rep, d) is keys[h, d, p].
    const Tensor& cacheK = ctx.CacheK.back();
    const int64_t H = model.args.n_heads, HD = model.args.headDim(), KV = model.args.n_kv_heads, P = 5;
    for (int64_t h = 0; h < H; ++h)
        for (int64_t d = 0; d < HD; ++d)
            for (int64_t p = 0; p < P; ++p)
                REQUIRE(check.lastKeys.floatAt((h * HD + d) * P + p) == cacheK.floatAt((p * KV + h / model.args.nRep()) * HD + d));
}
