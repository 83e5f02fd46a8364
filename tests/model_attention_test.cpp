#include <catch2/catch.hpp>
#include <limits>

#include "ml/ops.h"
#include "model/llama_attention.h"

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
