// LinearTransformation: y = x · Wᵀ, the op where inference spends its time.
//
// Decode (one token) reads every weight exactly once and does one FMA per weight, so it is
// bound by memory bandwidth: the weights are streamed straight from their BF16 storage,
// widened to F32 in registers, a few rows at a time (see dot_tile.h).
// Prefill (many tokens) does seqLen FMAs per weight, so it must not re-stream the weights for
// every token: a block of weight rows is widened to F32 once into a cache-resident scratch
// buffer, then every group of 4 x rows is multiplied against it; that is compute-bound.
// Either way the output rows are split across the shared thread pool.
#include <algorithm>
#include <vector>

#include "ml/dot_tile.h"
#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

using detail::dotTile;
using detail::fromF32;

constexpr int kDecodeRows = 4;            // weight rows per decode tile
constexpr int kTileX = 4, kTileW = 3;     // prefill tile (x rows × weight rows)
constexpr int64_t kBlockRows = 8 * kTileW;  // weight rows widened per block: 24 × in floats stays in L2
constexpr int64_t kPrefillMinRows = 4;    // from this many x rows on, the blocked path wins
constexpr int64_t kMinChunkWeights = 32768;  // below this many weights per chunk, scheduling costs more

struct Problem {
    const float* x;  // [rows, k] in F32
    int64_t rows, k, out;
};

// Rows [o0, o1) of the output, each weight row read once for all x rows (x rows are few, and
// the 4 weight rows of a tile stay in L1 while every x row passes over them).
template <class W, class Y>
void streamRows(const Problem& p, const W* w, Y* y, int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; o += kDecodeRows) {
        const W* wr[kDecodeRows];
        // A short last tile repeats its last row (reads cached data) instead of needing a second kernel.
        for (int c = 0; c < kDecodeRows; ++c) wr[c] = w + std::min(o + c, o1 - 1) * p.k;
        int valid = int(std::min<int64_t>(kDecodeRows, o1 - o));
        for (int64_t s = 0; s < p.rows; ++s) {
            const float* xr[1] = {p.x + s * p.k};
            float acc[1][kDecodeRows];
            dotTile<1, kDecodeRows>(xr, wr, p.k, acc);
            for (int c = 0; c < valid; ++c) y[s * p.out + o + c] = fromF32<Y>(acc[0][c]);
        }
    }
}

// Weight rows [o0, o1) for all x rows, a block of weight rows at a time.
template <class W, class Y>
void blockedRows(const Problem& p, const W* w, Y* y, int64_t o0, int64_t o1) {
    thread_local std::vector<float> scratch;
    for (int64_t ob = o0; ob < o1; ob += kBlockRows) {
        int64_t n = std::min(kBlockRows, o1 - ob);
        const float* wf;
        if constexpr (std::is_same_v<W, float>) {
            wf = w + ob * p.k;
        } else {
            scratch.resize(size_t(n * p.k));
            const W* src = w + ob * p.k;
            for (int64_t i = 0; i < n * p.k; ++i) scratch[size_t(i)] = src[i].toFloat();
            wf = scratch.data();
        }
        for (int64_t s = 0; s < p.rows; s += kTileX) {
            const float* xr[kTileX];
            for (int r = 0; r < kTileX; ++r) xr[r] = p.x + std::min(s + r, p.rows - 1) * p.k;
            int validX = int(std::min<int64_t>(kTileX, p.rows - s));
            for (int64_t o = 0; o < n; o += kTileW) {
                const float* wr[kTileW];
                for (int c = 0; c < kTileW; ++c) wr[c] = wf + std::min(o + c, n - 1) * p.k;
                int validW = int(std::min<int64_t>(kTileW, n - o));
                float acc[kTileX][kTileW];
                dotTile<kTileX, kTileW>(xr, wr, p.k, acc);
                for (int r = 0; r < validX; ++r)
                    for (int c = 0; c < validW; ++c) y[(s + r) * p.out + ob + o + c] = fromF32<Y>(acc[r][c]);
            }
        }
    }
}

template <class W, class Y>
void run(const Problem& p, const W* w, Y* y) {
    bool blocked = p.rows >= kPrefillMinRows;
    int64_t group = blocked ? kBlockRows : kDecodeRows;
    int64_t groups = (p.out + group - 1) / group;
    int64_t minGroups = std::max<int64_t>(1, kMinChunkWeights / (group * p.k));
    ThreadPool::global().parallelFor(
        groups,
        [&](int64_t g0, int64_t g1) {
            int64_t o0 = g0 * group, o1 = std::min(p.out, g1 * group);
            if (blocked)
                blockedRows(p, w, y, o0, o1);
            else
                streamRows(p, w, y, o0, o1);
        },
        minGroups);
}

}  // namespace

Tensor LinearTransformation(const Tensor& x, const Tensor& weights) {
    constexpr const char* op = "LinearTransformation";
    detail::requireFloat(op, x, "x");
    detail::requireFloat(op, weights, "weights");
    if (weights.rank() != 2 || x.rank() < 1 || x.dim(-1) != weights.dim(1))
        detail::fail(op, "x " + x.shapeStr() + " does not match weights " + weights.shapeStr() +
                             " (expected x [..., in] and weights [out, in])");
    Shape outShape = x.shape();
    outShape.back() = weights.dim(0);
    if (!x.hasData() || !weights.hasData()) return Tensor::shapeOnly(outShape, x.dtype());

    Tensor y(outShape, x.dtype());
    int64_t k = weights.dim(1);
    Problem p{nullptr, k ? x.numel() / k : 0, k, weights.dim(0)};
    if (p.rows == 0 || p.out == 0) return y;
    // x is small next to the weights: widen it to F32 once rather than in every tile.
    std::vector<float> xf;
    if (x.dtype() == DType::F32) {
        p.x = x.data<float>();
    } else {
        const BFloat16* xb = x.data<BFloat16>();
        xf.resize(size_t(x.numel()));
        for (size_t i = 0; i < xf.size(); ++i) xf[i] = xb[i].toFloat();
        p.x = xf.data();
    }
    detail::visitFloat(weights.dtype(), [&](auto wTag) {
        using W = decltype(wTag);
        detail::visitFloat(x.dtype(), [&](auto yTag) {
            using Y = decltype(yTag);
            run(p, weights.data<W>(), y.mutableData<Y>());
        });
    });
    return y;
}

}  // namespace llama::ml
