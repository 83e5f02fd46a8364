#pragma once
// The walkthrough's operations, one function each, named as the documents name them.
// An op returns a new row-major tensor, except the views: Reshape/ViewAs* (same bytes, new
// shape), Slice (some rows), and Transpose and RepeatInterleave (strided views, as PyTorch's
// transpose and expand are). MatMul reads strided views as they are;
// Reshape copies one into row-major order (as torch.reshape does); the other ops take only
// row-major tensors. Every op accepts shape-only tensors (no data) and then returns a
// shape-only result of the right shape and dtype without computing: that is the dry run.
// Bad shapes or dtypes throw std::invalid_argument naming the op and the shapes.
#include <cstdint>
#include <vector>

#include "ml/linear_plan.h"
#include "tensor/tensor.h"

namespace llama::ml {

// x [..., in] (BF16 or F32) · weightsᵀ, weights [out, in] (BF16 or F32) -> [..., out] in x's dtype.
// Accumulates in F32; a BF16 result is rounded once at the end, as PyTorch's CPU bf16 matmul does.
// Uses every core of the shared thread pool.
// A plain tensor of weights is planned for this call (linear_plan.h); LinearWeights, as the model's
// are, carry the plan made when they were bound.
Tensor LinearTransformation(const Tensor& x, const Tensor& weights);
Tensor LinearTransformation(const Tensor& x, const LinearWeights& weights);
// The same with the result in `result` (F32 or BF16) whatever x's dtype: BF16 operands with an F32
// result are mixed precision's products (bf16_products.h). Inside a BF16Products scope the two
// above take F32 x and weights as that: both rounded to BF16, an F32 result.
Tensor LinearTransformation(const Tensor& x, const Tensor& weights, DType result);
// sum += x · weightsᵀ (sum F32, of that shape): each output summed from +0 as above, then added to
// sum's value, the bits of AccumulateInto(sum, LinearTransformation(x, weights, F32)) without
// making the product apart. x and weights as they are (no BF16Products rounding).
void AddLinearTransformation(Tensor& sum, const Tensor& x, const Tensor& weights);

// Batched matrix product: a [B, M, K] · b [B, K, N] -> [B, M, N], in a's dtype (F32 accumulation).
// a and b may be strided views (transposed heads, transposed keys).
Tensor MatMul(const Tensor& a, const Tensor& b);

// Elementwise a + b. b has a's shape, or is [S, T] broadcast over every leading index of a [..., S, T]
// (the causal mask over the heads). Result in a's dtype.
Tensor Add(const Tensor& a, const Tensor& b);

// Elementwise a * b (F32, BF16 or Complex64). b has a's shape or broadcasts by size-1 dimensions
// of the same rank (freqs_cis [S, 1, HD/2] over xq [S, H, HD/2]). Result in a's dtype.
Tensor MultiplyElementwise(const Tensor& a, const Tensor& b);

// a / scalar, in a's dtype.
Tensor DivToScalar(const Tensor& a, float scalar);

// Softmax along `dim` of an F32 tensor (the reference upcasts before softmax). -inf entries give 0
// (a row that is all -inf gives NaN, as in PyTorch).
Tensor Softmax(const Tensor& a, int dim);

// x * sigmoid(x), in x's dtype.
Tensor Silu(const Tensor& x);

// Meta's RMSNorm: normalise each row in F32 (x / sqrt(mean(x^2) + eps)), cast back to x's dtype,
// then multiply by weight [dim] (result in x's dtype).
Tensor RMSNorm(const Tensor& x, const Tensor& weight, float eps);

// Swaps dimensions d0 and d1: a strided view of a's bytes, nothing copied.
Tensor Transpose(const Tensor& a, int d0, int d1);
// Each index of dimension `dim` read `repeats` times over, as torch.repeat_interleave, but as a
// strided view: nothing copied (attentionRepeatKV's N_Rep query heads per KV head).
Tensor RepeatInterleave(const Tensor& a, int dim, int64_t repeats);
// A's elements in row-major order: a itself, or a copy of a strided view.
Tensor Contiguous(const Tensor& a);

// Same bytes, new shape (element counts must agree).
Tensor Reshape(const Tensor& a, const Shape& shape);

// Rows [start, end) along dimension 0: a read-only view of a's bytes, nothing copied.
Tensor Slice(const Tensor& a, int64_t start, int64_t end);
// Writes src into dst's rows [start, start + src.dim(0)) along dimension 0, in place.
void SetSlice(Tensor& dst, int64_t start, const Tensor& src);

// F32 [..., 2n] -> Complex64 [..., n]: consecutive pairs become (real, imag), as torch.view_as_complex.
Tensor ViewAsComplex64WithReshape(const Tensor& a, const Shape& shape);
// Complex64 -> F32 with pairs flattened back, as torch.view_as_real + flatten, reshaped to `shape`.
Tensor ViewAsFloat32WithReshape(const Tensor& a, const Shape& shape);

Tensor ToFloat32(const Tensor& a);   // from BF16 (or F32: copy)
Tensor ToBFloat16(const Tensor& a);  // from F32 (round to nearest even) or BF16: copy

// Embedding lookup: rows of table [V, D] picked by tokens (I32 [S]) -> [S, D] in table's dtype.
// A token id outside [0, V) throws.
Tensor Fwd_Get_Rows(const Tensor& table, const Tensor& tokens);

// A tensor of `shape` filled with value.
Tensor Full(const Shape& shape, DType dtype, float value);
// Keeps elements with column - row >= diagonal of a 2-D tensor, zeroes the rest (torch.triu).
Tensor TriangularUpper(const Tensor& a, int64_t diagonal);

// Index of the largest element of a 1-D tensor (first one on ties; a NaN counts as largest, as in
// torch.argmax). A shape-only tensor has no values: the dry run gets 0.
int64_t Argmax(const Tensor& a);

}  // namespace llama::ml
