#pragma once
// How LinearTransformation computes y = x · Wᵀ for one weight matrix, decided once rather than on
// every call: ggml keeps a table of traits per weight type, calm a dot-product pointer per type.
// A plan is made for a weight dtype on one kernel path; for each row-count bucket of x (one row,
// decode; a few rows; many, prefill) and x's dtype it records the route (which loop and kernels),
// what x becomes first, and how many output rows go to a thread together. A call looks up its
// bucket and runs that step (linear_transformation.cpp has the loops).
// The model's weight matrices are LinearWeights: each carries the plan made when it was bound.
#include <cstdint>
#include <utility>

#include "ml/kernels/kernel_set.h"
#include "tensor/tensor.h"

namespace llama::ml {

namespace detail {
// Prefill tile of the F32 route: kTileX x rows × kTileW weight rows, each pair's 16 partial sums
// (dot_kernels.h) in registers: one vector each with AVX-512 (32 registers: 6×4, 24 of them), two
// with AVX2 (16 registers: 3×2, 12), four in WebAssembly (whose JIT maps them onto the CPU's 16
// and keeps some for itself: 2×1, 8).
#ifdef __AVX512F__
constexpr int kTileX = 6, kTileW = 4;
#elif defined(__wasm_simd128__)
constexpr int kTileX = 2, kTileW = 1;
#else
constexpr int kTileX = 3, kTileW = 2;
#endif
constexpr int64_t kBlockRows = 8 * kTileW;  // weight rows widened per block: a few hundred KiB, stays in L2
// Weight rows per block for KernelSet::bf16Rows: whole tiles of every path's (3, 4 or 6 rows).
constexpr int64_t kBF16BlockRows = 24;
constexpr int64_t kQuantBlockRows = 16;  // quantized weight rows per block in prefill (~2-4 KiB each)
}  // namespace detail

enum class LinearRoute : uint8_t {
    QuantizedDots,  // quantized weights: the path's integer dot kernel per weight row, up to kMaxRows x rows at a time
    Int16Panels,    // quantized prefill: weight rows unpacked to int16 panels, x interleaved `lanes` rows wide
    BytePanels,     // Q8_0/Q4_0 prefill where the CPU has 8-bit dot products: the weights stay bytes
    SmallValuePanels,  // Q4_0/K-quant prefill on relaxed SIMD: the weights' small values as bytes
    BF16Pair,       // one BF16 x row against BF16 weights, both as stored (KernelSet::dotBF16Pair)
    BF16Dots,       // BF16 weights against F32 x rows (KernelSet::dotBF16)
    BF16Tiles,      // BF16 x rows against BF16 weights, both as stored (KernelSet::bf16Rows)
    Stream,         // each weight row (F32, or widened/decoded to F32) dotted with every x row
    Tiles,          // a block of weight rows widened/decoded to F32 scratch, kTileX × kTileW tiles
};

enum class XForm : uint8_t {
    AsStored,     // BF16, read as it is
    Prepared,     // BF16 made ready for the path's bf16Rows once per call (KernelSet::prepareRows)
    F32,          // F32 as it is, or widened
    F32Padded,    // widened to F32, zero rows up to whole tiles
    Quantized,    // F32, then 8-bit blocks that line up with the weights' (activation_quant.h)
    Packed,       // F32, then quantized and interleaved `lanes` rows a group (KernelSet::panel)
    PackedBytes,  // the same as bytes (KernelSet::bytePanel)
    PackedSigned,  // the same as int8, four values a lane, with sums (KernelSet::smallValuePanel)
};

struct LinearStep {
    LinearRoute route;
    XForm x;
    int64_t rowsPerTask;  // output rows a thread takes together: the route's block of weight rows
};

struct LinearPlan {
    enum Bucket { OneRow, FewRows, ManyRows };

    LinearPlan(DType weights, const kernels::KernelSet& kernels);

    Bucket bucket(int64_t rows) const { return rows == 1 ? OneRow : rows < manyRowsFrom ? FewRows : ManyRows; }
    const LinearStep& step(int64_t rows, DType x) const { return steps[bucket(rows)][x == DType::BF16]; }

    DType weights;
    const kernels::KernelSet* kernels;  // the path it was made for
    int64_t manyRowsFrom;               // x rows from which the ManyRows step is the faster one
    LinearStep steps[3][2];             // [bucket][x is BF16]
    // Quantized weights with integer kernels: their format, and the dot kernel for their blocks
    // (dot32 for Q8_0/Q4_0, dot256 for the K-quants; the other null).
    kernels::BlockFormat format = kernels::BlockFormat::Q8_0;
    decltype(kernels::KernelSet::dotQ8_0) dot32 = nullptr;
    decltype(kernels::KernelSet::dotQ4_K) dot256 = nullptr;
};

// A weight matrix [out, in] with its plan, made when it is bound: the model's weights are these,
// and LinearTransformation(x, weights) then only picks the step for x's rows. Everywhere else it
// is the Tensor it holds.
class LinearWeights : public Tensor {
public:
    LinearWeights() : LinearWeights(Tensor()) {}
    // Implicit, so that `attn_wq = model.tensor(...)` binds and plans.
    LinearWeights(Tensor weights) : Tensor(std::move(weights)), plan_(dtype(), kernels::active()) {}

    // Made for the path active when bound; LinearTransformation checks it against the active one
    // (tests switch paths) and plans the call afresh if they differ.
    const LinearPlan& plan() const { return plan_; }

private:
    LinearPlan plan_;
};

}  // namespace llama::ml
