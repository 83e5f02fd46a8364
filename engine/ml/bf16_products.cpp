#include "ml/bf16_products.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "ml/op_profile.h"
#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

BF16Products* current = nullptr;  // the training loop's thread sets it; the pool's threads never read it

// BFloat16::fromFloat without its branch, so that a row of them compiles to vector code.
inline uint16_t roundedBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return (u & 0x7fffffffu) > 0x7f800000u ? uint16_t((u >> 16) | 0x40u) : uint16_t(rounded);
}

// A square tile of floats transposed in registers, kTile x kTile, a register's width: at each
// scale B (kTile / 2, then halved down to 1), rows i and i + B swap their off-diagonal B x B blocks (one
// two-source shuffle each, vpermt2ps where there is AVX-512). Loading the source a column at a
// time, one float per instruction, took 6% of a BF16 training step (perf). With AVX2 the tile is
// 8 x 8: as 16 x 16 each row took two registers and the 32 did not fit in 16 (4.5% of a step on
// Zen 3, spilling).
#if defined(__AVX2__) && !defined(__AVX512F__)
constexpr int64_t kTile = 8;
#else
constexpr int64_t kTile = 16;
#endif
typedef float TileRow __attribute__((vector_size(kTile * sizeof(float))));

template <int B, int... J>
TileRow upperBlocks(TileRow a, TileRow b, std::integer_sequence<int, J...>) {
    return __builtin_shufflevector(a, b, ((J & B) ? kTile + J - B : J)...);
}
template <int B, int... J>
TileRow lowerBlocks(TileRow a, TileRow b, std::integer_sequence<int, J...>) {
    return __builtin_shufflevector(a, b, ((J & B) ? kTile + J : J + B)...);
}
template <int B>
void swapBlocks(TileRow (&v)[kTile]) {
    for (int i = 0; i < kTile; ++i) {
        if (i & B) continue;
        const TileRow a = v[i], b = v[i + B];
        v[i] = upperBlocks<B>(a, b, std::make_integer_sequence<int, kTile>());
        v[i + B] = lowerBlocks<B>(a, b, std::make_integer_sequence<int, kTile>());
    }
    if constexpr (B > 1) swapBlocks<B / 2>(v);
}
// out[c][r] = src[r * stride + c] for r, c < kTile.
void transposeTile(const float* src, int64_t stride, float (&out)[kTile][kTile]) {
    TileRow v[kTile];
    for (int r = 0; r < kTile; ++r) std::memcpy(&v[r], src + r * stride, sizeof(TileRow));
    swapBlocks<kTile / 2>(v);
    for (int c = 0; c < kTile; ++c) std::memcpy(out[c], &v[c], sizeof(TileRow));
}

}  // namespace

BF16Products::BF16Products() : previous_(current) { current = this; }

BF16Products::~BF16Products() { current = previous_; }

BF16Products* BF16Products::active() { return current; }

const Tensor& BF16Products::rounded(const Tensor& weights) {
    const std::lock_guard lock(mutex_);
    Tensor& t = rounded_[weights.data<float>()];
    if (!t.hasData()) t = ToBFloat16(weights);
    return t;
}

const Tensor& BF16Products::roundedTransposed(const Tensor& weights) {
    const std::lock_guard lock(mutex_);
    Tensor& t = transposed_[weights.data<float>()];
    if (!t.hasData()) t = TransposedBF16(weights);
    return t;
}

Tensor TransposedBF16(const Tensor& a) {
    const OpScope profile(OpKind::ToBFloat16);
    detail::requireDType("TransposedBF16", a, DType::F32, "a");
    if (a.rank() != 2) detail::fail("TransposedBF16", "a " + a.shapeStr() + " must be a matrix");
    const Tensor ac = Contiguous(a);
    const int64_t rows = a.dim(0), cols = a.dim(1);
    Tensor y = Tensor::uninitialized({cols, rows}, DType::BF16);
    const float* src = ac.data<float>();
    uint16_t* dst = y.mutableData<uint16_t>();
    // Square tiles, transposed in F32 in L1, then each of the tile's columns rounded and stored
    // as consecutive values (vector code): 3 to 10 times faster than rounding rows first and
    // writing them out down the columns (measured at 256 rows and 256 to 4096 columns, 16 x 16).
    const int64_t colTiles = (cols + kTile - 1) / kTile;
    ThreadPool::global().parallelFor(colTiles, [&](int64_t t0, int64_t t1) {
        float tile[kTile][kTile];
        for (int64_t c0 = t0 * kTile; c0 < std::min(cols, t1 * kTile); c0 += kTile) {
            const int64_t nc = std::min(kTile, cols - c0);
            for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
                const int64_t nr = std::min(kTile, rows - r0);
                if (nc < kTile || nr < kTile) {  // a matrix's edge
                    for (int64_t r = 0; r < nr; ++r)
                        for (int64_t c = 0; c < nc; ++c) dst[(c0 + c) * rows + r0 + r] = roundedBits(src[(r0 + r) * cols + c0 + c]);
                    continue;
                }
                transposeTile(src + r0 * cols + c0, cols, tile);
                for (int64_t c = 0; c < kTile; ++c) {
                    uint16_t* d = dst + (c0 + c) * rows + r0;
                    for (int64_t r = 0; r < kTile; ++r) d[r] = roundedBits(tile[c][r]);
                }
            }
        }
    }, std::max<int64_t>(1, detail::kElementsPerTask / std::max<int64_t>(1, rows * kTile)));
    return y;
}

}  // namespace llama::ml
