#include <catch2/catch.hpp>
#include <cmath>

#include "ml/ops.h"
#include "model/llama_attention.h"
#include "model/rope.h"

using namespace llama;

// RoPE as complex multiplication must equal rotating each pair (x0, x1) of a head by the angle
// pos * theta^(-2i/HeadDim) with cos/sin directly.
TEST_CASE("RoPE by complex multiplication equals the direct cos/sin rotation", "[model][rope]") {
    const int seqLen = 5, heads = 3, headDim = 8, startPos = 7;
    const double theta = 10000.0;
    Tensor all = precomputeFreqsCis(headDim, 32, theta, false);
    Tensor freqs = ml::Slice(all, startPos, startPos + seqLen);
    Tensor xq({seqLen, heads, headDim}, DType::BF16);
    Tensor xk({seqLen, 1, headDim}, DType::BF16);
    auto* q = xq.mutableData<BFloat16>();
    auto* k = xk.mutableData<BFloat16>();
    for (int i = 0; i < xq.numel(); ++i) q[i] = BFloat16(std::sin(0.37f * i) * 2);
    for (int i = 0; i < xk.numel(); ++i) k[i] = BFloat16(std::cos(0.11f * i));
    auto [rq, rk] = applyRotaryEmbeddings(xq, xk, freqs);
    REQUIRE(rq.shape() == xq.shape());
    REQUIRE(rk.shape() == xk.shape());
    REQUIRE(rq.dtype() == DType::BF16);

    auto check = [&](const Tensor& in, const Tensor& out, int h) {
        for (int s = 0; s < seqLen; ++s)
            for (int hh = 0; hh < h; ++hh)
                for (int i = 0; i < headDim / 2; ++i) {
                    double freq = 1.0 / std::pow(theta, 2.0 * i / headDim);
                    double angle = (startPos + s) * freq;
                    int64_t base = (int64_t(s) * h + hh) * headDim + 2 * i;
                    double x0 = in.floatAt(base), x1 = in.floatAt(base + 1);
                    double y0 = x0 * std::cos(angle) - x1 * std::sin(angle);
                    double y1 = x0 * std::sin(angle) + x1 * std::cos(angle);
                    // One bf16 rounding of the result: relative error 2^-8.
                    REQUIRE(out.floatAt(base) == Approx(y0).margin(std::abs(y0) / 128 + 1e-5));
                    REQUIRE(out.floatAt(base + 1) == Approx(y1).margin(std::abs(y1) / 128 + 1e-5));
                }
    };
    check(xq, rq, heads);
    check(xk, rk, 1);
}

TEST_CASE("Llama 3.1 RoPE scaling keeps short wavelengths and slows long ones by 8", "[model][rope]") {
    // HeadDim 128, theta 500000: Llama 3.1 8B's frequencies.
    std::vector<float> freqs, original;
    for (int i = 0; i < 64; ++i) freqs.push_back(1.0f / std::pow(500000.0f, float(2 * i) / 128));
    original = freqs;
    applyRopeScaling(freqs);
    for (int i = 0; i < 64; ++i) {
        float wavelen = 2 * float(M_PI) / original[i];
        if (wavelen < 8192.0f / 4) REQUIRE(freqs[i] == original[i]);
        else if (wavelen > 8192.0f) REQUIRE(freqs[i] == Approx(original[i] / 8));
        else {
            REQUIRE(freqs[i] < original[i]);
            REQUIRE(freqs[i] > original[i] / 8);
        }
    }
    REQUIRE(freqs[0] == 1.0f);
}

TEST_CASE("precomputed freqs_cis has unit magnitude and angle pos*freq", "[model][rope]") {
    Tensor f = precomputeFreqsCis(4, 10, 10000.0, false);
    REQUIRE(f.shape() == Shape{10, 2});
    REQUIRE(f.dtype() == DType::Complex64);
    const auto* c = f.data<Complex64>();
    REQUIRE(std::abs(c[3 * 2 + 0]) == Approx(1.0f));
    REQUIRE(std::arg(c[3 * 2 + 0]) == Approx(3.0f - 2 * M_PI * 0).margin(1e-5));  // pos 3, freq 1
    REQUIRE(std::arg(c[3 * 2 + 1]) == Approx(3.0 * 0.01).margin(1e-6));          // freq 10000^(-1/2)
}

TEST_CASE("RoPE scaling: long wavelengths slowed by the model's factor (8 for 3.1, 32 for 3.2 1B/3B)", "[model][rope]") {
    for (float factor : {8.0f, 32.0f}) {
        std::vector<float> freqs = {1.0f, 1e-4f};  // wavelength 6.3 (kept) and 62832 (> 8192: divided)
        applyRopeScaling(freqs, factor);
        CHECK(freqs[0] == 1.0f);
        CHECK(freqs[1] == Approx(1e-4f / factor));
    }
}
