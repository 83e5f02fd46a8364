#pragma once
// Mixed precision as PyTorch's bf16 autocast does it on a CPU (assets/train.py --bf16, how the
// bundled model was trained): while a BF16Products scope is alive, the linear layers' products
// — the forward pass's x · Wᵀ and the backward pass's dy · W and dyᵀ · x — round both operands to
// BF16 (round to nearest even) and add their exact products in F32, with the kernels' BF16 tiles
// (vdpbf16ps where the CPU has it: twice the F32 multiply-adds per instruction). Results stay F32
// (autocast rounds them to BF16 too), and so does everything else: the master weights, their
// gradients, AdamW's moments, norms, softmax, attention's products and the loss.
// A BF16 operand times a BF16 operand is exact in F32, so every kernel path still gives the same
// bits (kernels/kernel_set.h).
#include <mutex>
#include <unordered_map>

#include "tensor/tensor.h"

namespace llama::ml {

class BF16Products {
public:
    // Makes this scope the one in use until it ends (then the one it replaced is again). A training
    // step is one scope: its weights do not change inside it, so each is rounded once for all its
    // windows.
    BF16Products();
    ~BF16Products();
    BF16Products(const BF16Products&) = delete;
    BF16Products& operator=(const BF16Products&) = delete;

    // The scope in use, or null (F32 products).
    static BF16Products* active();

    // weights [out, in] (F32) rounded to BF16, as stored or transposed ([in, out]), made on the
    // first call for that tensor in this scope. Q, K and V's tasks may ask at once (LLAMA_TASKS
    // new-thread or kept-threads): one at a time.
    const Tensor& rounded(const Tensor& weights);
    const Tensor& roundedTransposed(const Tensor& weights);

private:
    std::mutex mutex_;
    std::unordered_map<const void*, Tensor> rounded_, transposed_;
    BF16Products* previous_;
};

// a [rows, cols] (F32) transposed and rounded to BF16: [cols, rows].
Tensor TransposedBF16(const Tensor& a);

}  // namespace llama::ml
