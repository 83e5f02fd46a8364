// Llama 3.1's RoPE frequency scaling (factor 8) and Llama 3.2's (factor 32) against Meta's formula
// in PyTorch, and q/k rotated with them: goldens made by assets/golden/make_rope_sampler_golden.py.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ml/ops.h"
#include "model/rope.h"

using namespace llama;

namespace {
Tensor bf16Tensor(const Shape& shape, const std::vector<float>& values) {
    Tensor t(shape, DType::BF16);
    REQUIRE(int64_t(values.size()) == t.numel());
    for (size_t i = 0; i < values.size(); ++i) t.mutableData<BFloat16>()[i] = BFloat16(values[i]);
    return t;
}

// Within one bfloat16 step of the reference (cos/sin may round differently in the last bit).
void requireBf16Close(const Tensor& got, const std::vector<float>& want) {
    REQUIRE(got.numel() == int64_t(want.size()));
    for (size_t i = 0; i < want.size(); ++i) {
        const float step = std::ldexp(1.0f, std::ilogb(std::max(std::abs(want[i]), 1e-3f)) - 7);
        INFO("element " << i);
        REQUIRE(std::abs(got.floatAt(int64_t(i)) - want[i]) <= step);
    }
}
}  // namespace

TEST_CASE("RoPE scaling matches Meta's formula for Llama 3.1 (8) and 3.2 (32)", "[golden][model][rope]") {
    std::ifstream in(std::string(ASSETS_DIR) + "/golden/rope_scaling.json");
    REQUIRE(in);
    const auto golden = nlohmann::json::parse(in);
    REQUIRE(golden["cases"].size() == 2);
    for (const auto& c : golden["cases"]) {
        const float factor = c["scale_factor"];
        const int headDim = c["head_dim"], startPos = c["start_pos"];
        const double theta = c["theta"];
        DYNAMIC_SECTION("scale factor " << factor) {
            const std::vector<float> plain = c["plain_freqs"], scaled = c["scaled_freqs"];
            std::vector<float> freqs = ropeFrequencies(headDim, theta);
            REQUIRE(freqs.size() == plain.size());
            for (size_t i = 0; i < plain.size(); ++i) REQUIRE(freqs[i] == Approx(plain[i]).epsilon(1e-6));
            applyRopeScaling(freqs, factor);
            int blended = 0;  // frequencies in the smooth band, neither kept nor divided by the factor
            for (size_t i = 0; i < scaled.size(); ++i) {
                INFO("frequency " << i);
                REQUIRE(freqs[i] == Approx(scaled[i]).epsilon(1e-6));
                blended += std::abs(scaled[i] - plain[i]) > 1e-6 * plain[i] && std::abs(scaled[i] - plain[i] / factor) > 1e-6 * plain[i];
            }
            REQUIRE(blended >= 3);  // the golden exercises the blend, not only the two plain cases

            const std::vector<int64_t> qShape = c["xq_shape"], kShape = c["xk_shape"];
            Tensor xq = bf16Tensor(Shape(qShape.begin(), qShape.end()), c["xq"]);
            Tensor xk = bf16Tensor(Shape(kShape.begin(), kShape.end()), c["xk"]);
            Tensor all = precomputeFreqsCis(headDim, startPos + int(qShape[0]), theta, true, false, factor);
            auto [q, k] = applyRotaryEmbeddings(xq, xk, ml::Slice(all, startPos, startPos + qShape[0]));
            requireBf16Close(q, c["q_rotated"]);
            requireBf16Close(k, c["k_rotated"]);
        }
    }
}
