// A tensor's summary (tensor/tensor_stats.h): min, max, mean and -inf count over its finite
// values, checked against a plain double loop, and the same to the last bit however the elements
// were handed over (the KV cache's summary grows row by row; a trace reads a tensor whole).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "tensor/bfloat16.h"
#include "tensor/tensor_stats.h"

using namespace llama;

namespace {
Tensor maskedNormalTensor(Shape shape, DType dtype, uint32_t seed) {
    Tensor t(shape, dtype);
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.5f, 3.0f);
    for (int64_t i = 0; i < t.numel(); ++i) {
        float v = normal(rng);
        if (i % 97 == 13) v = -std::numeric_limits<float>::infinity();  // as in a mask
        if (i % 211 == 7) v = std::numeric_limits<float>::quiet_NaN();
        if (dtype == DType::F32) t.mutableData<float>()[i] = v;
        else t.mutableData<uint16_t>()[i] = BFloat16::fromFloat(v);
    }
    return t;
}
}  // namespace

TEST_CASE("tensor summary: finite values only, as a plain double loop computes it", "[stats]") {
    for (DType dtype : {DType::F32, DType::BF16})
        for (int64_t n : {1, 7, 8, 9, 255, 4096, 4101}) {
            const Tensor t = maskedNormalTensor({n}, dtype, uint32_t(n));
            double sum = 0;
            int64_t finite = 0, negInf = 0;
            float lo = INFINITY, hi = -INFINITY;
            for (int64_t i = 0; i < n; ++i) {
                const float v = t.floatAt(i);
                if (std::isinf(v) && v < 0) ++negInf;
                if (!std::isfinite(v)) continue;
                sum += v, ++finite, lo = std::min(lo, v), hi = std::max(hi, v);
            }
            const TensorStats s = computeStats(t);
            INFO(dtypeName(dtype) << " n " << n);
            CHECK(s.negInf == negInf);
            if (finite) {
                CHECK(s.min == lo);
                CHECK(s.max == hi);
                CHECK(s.mean == Approx(sum / double(finite)).epsilon(1e-6));
            }
        }
}

TEST_CASE("tensor summary: handed over in pieces of any size, the same to the last bit as whole", "[stats]") {
    for (DType dtype : {DType::F32, DType::BF16}) {
        const int64_t n = 3001;
        const Tensor t = maskedNormalTensor({n}, dtype, 5);
        const TensorStats whole = computeStats(t);
        std::mt19937 rng(9);
        for (int round = 0; round < 20; ++round) {
            StatsAccumulator acc;
            for (int64_t at = 0; at < n;) {
                const int64_t piece = std::min<int64_t>(n - at, int64_t(rng() % 40));
                acc.addRows(static_cast<const char*>(t.rawData()) + at * int64_t(dtypeBytes(dtype, 1)), dtype, 1, piece);
                at += piece;
            }
            const TensorStats pieces = acc.summary(t, 1);
            INFO(dtypeName(dtype) << " round " << round);
            CHECK(pieces.mean == whole.mean);
            CHECK(pieces.min == whole.min);
            CHECK(pieces.max == whole.max);
            CHECK(pieces.negInf == whole.negInf);
        }
    }
}

TEST_CASE("tensor summary: a transposed view summarises the same elements", "[stats]") {
    const Tensor t = maskedNormalTensor({6, 10}, DType::F32, 3);
    const Tensor transposed = Tensor::strided({10, 6}, {1, 10}, t);
    const TensorStats a = computeStats(t), b = computeStats(transposed);
    CHECK(a.min == b.min);
    CHECK(a.max == b.max);
    CHECK(a.negInf == b.negInf);
    CHECK(a.mean == Approx(b.mean).epsilon(1e-6));
    CHECK(b.first[1] == t.floatAt(10));
}

TEST_CASE("tensor summary: zeros counted without reading them are the zeros read", "[stats]") {
    // After a few values (-0.0 among them, and rows ending mid-lane), n zeros counted or read.
    for (int64_t n : {0, 1, 3, 8, 13, 1000}) {
        INFO(n << " zeros");
        Tensor head({3, 5}, DType::F32);
        for (int64_t i = 0; i < head.numel(); ++i) head.mutableData<float>()[i] = i % 4 == 0 ? -0.0f : float(i) - 9.5f;
        Tensor all({3 * 5 + n}, DType::F32);
        std::copy(head.data<float>(), head.data<float>() + head.numel(), all.mutableData<float>());
        StatsAccumulator counted;
        counted.addRows(head.data<float>(), DType::F32, 5, 3);
        counted.addZeros(n);
        const TensorStats a = counted.summary(all, 1), b = computeStats(all);
        CHECK(a.min == b.min);
        CHECK(a.max == b.max);
        CHECK(std::signbit(a.min) == std::signbit(b.min));
        CHECK(a.mean == b.mean);
        CHECK(a.negInf == b.negInf);
    }
    // Only zeros: the mean is +0, as adding them one by one gives.
    StatsAccumulator zeros;
    zeros.addZeros(20);
    const TensorStats z = zeros.summary(Tensor({20}, DType::F32), 1);
    CHECK(z.mean == 0.0f);
    CHECK_FALSE(std::signbit(z.max));
}
