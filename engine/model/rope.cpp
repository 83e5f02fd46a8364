#include "model/rope.h"

#include <cmath>
#include <numbers>

#include "ml/backward_ops.h"
#include "ml/op_profile.h"
#include "ml/ops.h"
#include "model/portable_math.h"

namespace llama {

void applyRopeScaling(std::vector<float>& freqs, float scaleFactor) {
    const float lowFreqFactor = 1.0f, highFreqFactor = 4.0f, oldContextLen = 8192.0f;
    const float lowFreqWavelen = oldContextLen / lowFreqFactor;
    const float highFreqWavelen = oldContextLen / highFreqFactor;
    for (float& freq : freqs) {
        float wavelen = 2 * std::numbers::pi_v<float> / freq;
        if (wavelen < highFreqWavelen) continue;
        if (wavelen > lowFreqWavelen) {
            freq = freq / scaleFactor;
        } else {
            float smooth = (oldContextLen / wavelen - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
            freq = (1 - smooth) * freq / scaleFactor + smooth * freq;
        }
    }
}

std::vector<float> ropeFrequencies(int headDim, double theta) {
    std::vector<float> freqs(size_t(headDim / 2));
    for (int i = 0; i < headDim / 2; ++i) {
        float exponent = float(2 * i) / float(headDim);
        // theta^exponent rounded to float, the same on every machine (model/portable_math.h).
        freqs[size_t(i)] = 1.0f / float(portable::pow(double(float(theta)), double(exponent)));
    }
    return freqs;
}

Tensor precomputeFreqsCis(int headDim, int end, double theta, bool useScaled, bool shapesOnly, float scaleFactor) {
    Shape shape{end, headDim / 2};
    if (shapesOnly) return Tensor::shapeOnly(shape, DType::Complex64);
    // As Meta: freqs in float32, t = arange(end) in float32, outer product, polar(1, angle).
    std::vector<float> freqs = ropeFrequencies(headDim, theta);
    if (useScaled) applyRopeScaling(freqs, scaleFactor);
    Tensor result(shape, DType::Complex64);
    auto* out = result.mutableData<Complex64>();
    for (int p = 0; p < end; ++p)
        for (int i = 0; i < headDim / 2; ++i) {
            float angle = float(p) * freqs[i];
            double c, s;
            portable::cosSin(double(angle), c, s);
            out[int64_t(p) * (headDim / 2) + i] = Complex64(float(c), float(s));
        }
    return result;
}

std::pair<Tensor, Tensor> applyRotaryEmbeddings(const Tensor& xq, const Tensor& xk, const Tensor& freqsCis) {
    const ml::OpScope profile(ml::OpKind::RoPE);
    return {applyRotaryEmbedding(xq, freqsCis), applyRotaryEmbedding(xk, freqsCis)};
}

Tensor applyRotaryEmbedding(const Tensor& x, const Tensor& freqsCis) {
    const Shape& shape = x.shape();
    // x [seqLen, heads, HeadDim] BF16 or F32 -> F32 -> complex [seqLen, heads, HeadDim/2]
    Tensor x_ = ml::ViewAsComplex64WithReshape(ml::ToFloat32(x), {shape[0], shape[1], shape[2] / 2});
    // freqs_cis [seqLen, HeadDim/2] -> [seqLen, 1, HeadDim/2] so it broadcasts over the heads.
    Tensor freqs = ml::Reshape(freqsCis, {shape[0], 1, shape[2] / 2});
    Tensor rotated = ml::ViewAsFloat32WithReshape(ml::MultiplyElementwise(x_, freqs), shape);
    // Back in the dtype it came in (a BF16 run rounds it, as Meta's type_as(xq) does).
    return x.dtype() == DType::BF16 ? ml::ToBFloat16(rotated) : rotated;
}

Tensor applyRotaryEmbeddingBackward(const Tensor& dRotated, const Tensor& freqsCis) {
    const ml::OpScope profile(ml::OpKind::RoPE);
    return applyRotaryEmbedding(dRotated, ml::Conjugate(freqsCis));
}

}  // namespace llama
