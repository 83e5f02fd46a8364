#pragma once
// Rotary position embeddings as Meta's reference computes them: each pair of a head's
// dimensions is a complex number, rotated by multiplying with freqs_cis = e^(i * pos * freq).
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace llama {

// The headDim/2 rotation frequencies of a head, f_i = theta^(-2i/headDim), in float32 as Meta
// computes them.
std::vector<float> ropeFrequencies(int headDim, double theta);

// Llama 3.1's frequency scaling (scale factor 8, low/high frequency factors 1 and 4, original
// context 8192): long wavelengths are slowed down, short ones kept, a smooth blend between.
// Llama 3.2 1B/3B use the same scheme with scale factor 32.
void applyRopeScaling(std::vector<float>& freqs, float scaleFactor = 8.0f);

// Complex64 [end, headDim/2]: row p holds cos(p*f_i) + i sin(p*f_i), f_i = theta^(-2i/headDim).
// Shape-only when `shapesOnly` (dry run).
Tensor precomputeFreqsCis(int headDim, int end, double theta, bool useScaled, bool shapesOnly = false, float scaleFactor = 8.0f);

// Rotates xq and xk ([seqLen, heads, HeadDim], BF16) by freqs_cis ([seqLen, HeadDim/2], Complex64):
// pairs become complex numbers in F32, multiply, back to BF16, as Meta's apply_rotary_emb.
std::pair<Tensor, Tensor> applyRotaryEmbeddings(const Tensor& xq, const Tensor& xk, const Tensor& freqsCis);
// One of them: x [seqLen, heads, HeadDim] rotated by freqs_cis [seqLen, HeadDim/2], in x's dtype.
Tensor applyRotaryEmbedding(const Tensor& x, const Tensor& freqsCis);
// Training: the gradient of a rotated x back to x's. A rotation's inverse is the rotation by the
// opposite angle, and its backward is that inverse: multiply by the conjugate of freqs_cis.
Tensor applyRotaryEmbeddingBackward(const Tensor& dRotated, const Tensor& freqsCis);

}  // namespace llama
