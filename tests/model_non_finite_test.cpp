// Issue 46 item 5: a pass whose logits are not finite stops naming the step and the first stage that
// went non-finite (model/finite_logits.h), and the watch that finds it reads backward stages alike.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>

#include "model/finite_logits.h"
#include "model/llama_transformer.h"
#include "session/model_source.h"
#include "stages/non_finite_watch.h"
#include "tensor/bfloat16.h"
#include "ml/non_finite.h"

using namespace llama;
using Catch::Matchers::Contains;

namespace {
// Every value of `t` set to `v`.
void fill(Tensor& t, float v) {
    for (int64_t i = 0; i < t.numel(); ++i)
        if (t.dtype() == DType::BF16) t.mutableData<BFloat16>()[i] = BFloat16(v);
        else t.mutableData<float>()[i] = v;
}
}  // namespace

TEST_CASE("a pass whose logits are not finite stops naming the step and the first stage that went non-finite", "[nonfinite]") {
    Model model = loadModelSource({ModelSource::Kind::Synthetic, "tiny"}, {});
    for (auto& [name, t] : model.tensors)
        if (name == "norm.weight") fill(t, 3e38f);  // the final norm overflows: every later stage inherits it
    InferenceContext ctx(model.args);
    ctx.step = 2;
    struct Count : StageObserver {
        int marks = 0;
        StageReads reads(StageId, int) const override { return StageReads::Shapes; }
        void onStage(const StageEvent&) override { ++marks; }
    } count;
    ctx.addObserver(&count);
    try {
        LlamaTransformer(model).Forward(ctx, Tensor::fromInt32({1, 2, 3}), 0);
        FAIL("the pass went on with non-finite logits");
    } catch (const NonFiniteValues& e) {
        CHECK_THAT(e.what(), Contains("step 2: the values went non-finite first at stage 19 'output_norm'") &&
                                    Contains("tensor 'currentTensor' shape([3 64]) holds -infinity at element 3"));
    }
    const int passMarks = count.marks;  // the first pass's: the pass run again was seen by the watch alone
    CHECK(passMarks > 0);
    for (auto& [name, t] : model.tensors)
        if (name == "norm.weight") fill(t, 1.0f);
    LlamaTransformer(model).Forward(ctx, Tensor::fromInt32({1, 2, 3}), 0);
    CHECK(count.marks == 2 * passMarks);  // and the run's observers are back
}

TEST_CASE("the non-finite watch names a backward stage's gradient as it names a forward stage's tensor", "[nonfinite]") {
    Tensor gradient({2, 3}, DType::F32);
    fill(gradient, 1.0f);
    gradient.mutableData<float>()[4] = std::numeric_limits<float>::quiet_NaN();
    StageEvent event{.stage = StageId::QKVBackward, .layer = 1, .step = 7};
    event.tensors = {{"dX", &gradient}};
    NonFiniteWatch watch;
    CHECK_THROWS_WITH(watch.onStage(event), Contains("step 7: the values went non-finite first at stage 8 'qkv_backward'") &&
                                                Contains("in layer 2") && Contains("tensor 'dX'") && Contains("NaN at element 4"));

    // -infinity is a value where a mask is built or added, an overflow anywhere else.
    gradient.mutableData<float>()[4] = -std::numeric_limits<float>::infinity();
    CHECK(firstNonFinite(gradient) == 4);
    CHECK_FALSE(firstNonFinite(gradient, true));
    StageEvent masked{.stage = StageId::ScoresMask, .layer = 0, .step = 0, .fields = {{"mask", gradient}}};
    masked.tensors = {{"scores", &gradient}};
    CHECK_NOTHROW(watch.onStage(masked));
}

TEST_CASE("the first non-finite value is found wherever it sits, in every format the load scans", "[nonfinite]") {
    // Positions on both sides of the scan's 256-value chunks, and the last value.
    for (const int64_t at : {0, 255, 256, 511, 700, 999}) {
        for (const DType dtype : {DType::F32, DType::BF16}) {
            Tensor t({1000}, dtype);
            fill(t, 1.0f);
            CHECK_FALSE(firstNonFinite(t));
            if (dtype == DType::BF16) {
                t.mutableData<BFloat16>()[at] = BFloat16(std::numeric_limits<float>::infinity());
                if (at + 1 < 1000) t.mutableData<BFloat16>()[at + 1] = BFloat16(std::numeric_limits<float>::quiet_NaN());
            } else {
                t.mutableData<float>()[at] = -std::numeric_limits<float>::infinity();
                if (at + 1 < 1000) t.mutableData<float>()[at + 1] = std::numeric_limits<float>::quiet_NaN();
            }
            CHECK(firstNonFinite(t) == at);
            // -infinity allowed: the F32 tensor's first is the NaN after it (none after the last value).
            const auto allowed = firstNonFinite(t, true);
            if (dtype == DType::BF16) CHECK(allowed == at);
            else if (at + 1 < 1000) CHECK(allowed == at + 1);
            else CHECK_FALSE(allowed);
        }
    }
    // A quantized tensor is scanned by its blocks' F16 scales: block 300 of 320 (Q8_0: 34 bytes a block).
    Tensor q({320 * 32}, DType::Q8_0);
    std::memset(q.mutableData<uint8_t>(), 0, size_t(320) * 34);
    CHECK_FALSE(firstNonFinite(q));
    q.mutableData<uint8_t>()[300 * 34 + 1] = 0x7C;  // F16 +infinity, little-endian
    CHECK(firstNonFinite(q) == 300);
}
