#pragma once
// Rotary position embeddings as Meta's reference computes them: each pair of a head's
// dimensions is a complex number, rotated by multiplying with freqs_cis = e^(i * pos * freq).
#include <vector>

#include "tensor/tensor.h"

namespace llama {

// Llama 3.1's frequency scaling (scale factor 8, low/high frequency factors 1 and 4, original
// context 8192): long wavelengths are slowed down, short ones kept, a smooth blend between.
// Llama 3.2 1B/3B use the same scheme with scale factor 32.
void applyRopeScaling(std::vector<float>& freqs, float scaleFactor = 8.0f);

// Complex64 [end, headDim/2]: row p holds cos(p*f_i) + i sin(p*f_i), f_i = theta^(-2i/headDim).
// Shape-only when `shapesOnly` (dry run).
Tensor precomputeFreqsCis(int headDim, int end, double theta, bool useScaled, bool shapesOnly = false, float scaleFactor = 8.0f);

}  // namespace llama
