#pragma once
// The operations a backward pass adds to the walkthrough's (ops.h): each takes the gradient of
// an op's result (named d<result>, as `dScores`) and what the forward pass computed, and gives
// the gradients of the op's inputs. F32 only: training keeps its weights and gradients in F32
// (the master weights of mixed precision). Every sum runs in one fixed order, whatever the CPU or
// the thread count, so a training step gives the same bits on every machine (docs/speed.md).
#include <cstdint>
#include <initializer_list>

#include "tensor/tensor.h"

namespace llama::ml {

// Cross-entropy of next-token prediction: logits [N, V] (F32) against targets (I32 [N]; a target
// of -1 is not scored, as PyTorch's ignore_index). loss is the mean over the scored rows of
// -log softmax(logits)[target], in nats; dLogits [N, V] its gradient, softmax - onehot over the
// number of scored rows (zero rows for unscored ones).
struct CrossEntropyResult {
    double loss = 0;
    int64_t scored = 0;
    Tensor dLogits;
};
CrossEntropyResult CrossEntropy(const Tensor& logits, const Tensor& targets);

// y = Softmax(x) along the last dimension, given y and dy: dx = y * (dy - sum(dy * y)). A masked
// entry (y = 0) gets no gradient, which is why the causal mask needs no backward of its own.
Tensor SoftmaxBackward(const Tensor& y, const Tensor& dy);

// y = RMSNorm(x, weight) (ops.h), given dy: dx and the weight's gradient summed over every row.
// With r = 1/sqrt(mean(x²) + eps) and g = dy * weight: dx = r * (g - x * r² * mean(g * x)).
struct RMSNormGradients {
    Tensor dx;
    Tensor dWeight;
};
RMSNormGradients RMSNormBackward(const Tensor& x, const Tensor& weight, const Tensor& dy, float eps);

// y = Silu(x) = x * sigmoid(x), given dy: dx = dy * sigmoid(x) * (1 + x * (1 - sigmoid(x))).
Tensor SiluBackward(const Tensor& x, const Tensor& dy);

// RepeatInterleave's backward: a [..., H * repeats, ...] along `dim` -> [..., H, ...], each group
// of `repeats` consecutive indices summed (in index order). attentionRepeatKV gave each KV head to
// N_Rep query heads, so a KV head's gradient is the sum of theirs.
Tensor SumRepeated(const Tensor& a, int dim, int64_t repeats);

// The complex conjugate of a Complex64 tensor: RoPE's backward rotates by the conjugate angles.
Tensor Conjugate(const Tensor& a);

// A frozen weight's gradient (LoRA fine-tuning, model/gradients.h) is an empty Tensor(): the
// three ops below that sum into a weight's gradient leave it alone.
inline bool isFrozenGradient(const Tensor& gradient) { return gradient.rank() == 0 && !gradient.hasData(); }

// sum += a, in place (same shape, F32): gradients of several uses, or of several windows, summed.
void AccumulateInto(Tensor& sum, const Tensor& a);

// Fwd_Get_Rows's backward: table [V, D] (F32) gets rows [S, D] added at tokens (I32 [S]), in
// token order (a token seen twice gets both rows).
void AddRowsInto(Tensor& table, const Tensor& tokens, const Tensor& rows);

// y = LinearTransformation(x, W) = x · Wᵀ with x [S, in], W [out, in], given dy [S, out]:
// dx = dy · W, and dW += dyᵀ · x (the product summed over the S rows in row order, then added).
// Each output adds its products one rounded product at a time in increasing k, as MatMul does
// (row_products.h). W may be F32, BF16 or F16 (a frozen base under an adapter); the rest is F32.
// Inside a BF16Products scope (bf16_products.h) both products take BF16 operands (F32 W rounded),
// summed in F32 in the kernels' canonical order (dot_kernels.h) instead.
Tensor LinearBackwardInput(const Tensor& dy, const Tensor& weights);
void LinearBackwardWeights(Tensor& dWeights, const Tensor& dy, const Tensor& x);
// dx += dy · W, the bits of AccumulateInto(dx, LinearBackwardInput(dy, weights)) (x fed several
// layers, so its gradient is their sum), without making the product apart.
void AddLinearBackwardInput(Tensor& dx, const Tensor& dy, const Tensor& weights);
// Several weights that read one x (Q, K and V; the FFN's gate and up), each dWeights += dyᵀ · x as
// above: x made ready (transposed and rounded, with BF16 products) once for all of them.
struct WeightGradient {
    Tensor& dWeights;
    const Tensor& dy;
};
void LinearBackwardWeights(std::initializer_list<WeightGradient> gradients, const Tensor& x);

}  // namespace llama::ml
