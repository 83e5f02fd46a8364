// LinearTransformation: y = x · Wᵀ, the op where inference spends its time.
//
// Decode (one token) reads every weight exactly once and does one FMA per weight, so it is
// bound by memory bandwidth: the weights are streamed straight from their BF16 storage,
// widened to F32 in registers, row after row (see dot_kernels.h).
// Prefill (many tokens) does seqLen FMAs per weight, so it must not re-stream the weights for
// every token: a block of weight rows is widened to F32 once into a cache-resident scratch
// buffer, then every group of kTileX x rows is multiplied against it; that is compute-bound.
// Either way the output rows are split across the shared thread pool.
// F16 and block-quantized weights (GGUF files) stay in their compact form in memory and are
// decoded as they are used: decode turns a chunk of a row's blocks into F32 on the stack and
// dots it with x; prefill decodes each block of weight rows into the same F32 scratch the
// BF16 path widens into.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tensor/quant_blocks.h"

#include "ml/dot_kernels.h"
#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

using detail::dotTile;
using detail::fromF32;

// Prefill tile: kTileX x rows × kTileW weight rows, kTileX * kTileW accumulators in registers.
// The sizes were measured (Zen 4, [32..128, 2048] × [2048, 2048]): with AVX-512VL the compiler
// has 32 vector registers and 6×4 is fastest (~75-85 GFLOP/s per core); with 16, 6×2 (~55-60).
#ifdef __AVX512VL__
constexpr int kTileX = 6, kTileW = 4;
#else
constexpr int kTileX = 6, kTileW = 2;
#endif
constexpr int64_t kBlockRows = 8 * kTileW;  // weight rows widened per block: a few hundred KiB, stays in L2
// With fewer x rows than one tile, padding wastes more than the blocking saves (measured).
constexpr int64_t kPrefillMinRows = kTileX;
constexpr int64_t kMinChunkWeights = 32768;  // below this many weights per chunk, scheduling costs more

struct Problem {
    const float* x;  // [rows, k] in F32; on the blocked path padded with zero rows to a multiple of kTileX
    int64_t rows, k, out;
    const float* xi = nullptr;  // x rearranged for dotRowUnpacked (decode with BF16 weights), or null
};

// Weights in a block format (F16, Q8_0, ...): rows of rowBytes bytes.
struct BlockRows {
    DType type;
    const uint8_t* base;
    size_t rowBytes;
};

// Output columns [o0, o1), each weight row read from memory once for all x rows (x rows are
// few here, and a weight row stays in L1 while every x row passes over it).
template <class W, class Y>
void streamRows(const Problem& p, const W* w, Y* y, int64_t o0, int64_t o1) {
#ifdef __AVX512BW__
    if constexpr (std::is_same_v<W, BFloat16>)
        if (p.xi) {
            for (int64_t o = o0; o < o1; ++o)
                for (int64_t s = 0; s < p.rows; ++s)
                    y[s * p.out + o] = fromF32<Y>(detail::dotRowUnpacked(p.xi + s * p.k, p.x + s * p.k, w + o * p.k, p.k));
            return;
        }
#endif
    for (int64_t o = o0; o < o1; ++o)
        for (int64_t s = 0; s < p.rows; ++s) y[s * p.out + o] = fromF32<Y>(detail::dotRow(p.x + s * p.k, w + o * p.k, p.k));
}

// The same for block formats: up to 256 weights (one K-quant super-block, eight Q8_0 blocks)
// are decoded onto the stack, then every x row is dotted with them while they sit in L1.
template <class Y>
void streamRows(const Problem& p, const BlockRows& w, Y* y, int64_t o0, int64_t o1) {
    const int64_t bs = dtypeBlockSize(w.type);
    int64_t chunk = bs;
    for (int64_t c : {256, 32})
        if (c % bs == 0 && p.k % c == 0) {
            chunk = c;
            break;
        }
    alignas(32) float decoded[256];
    float acc[kPrefillMinRows];
    for (int64_t o = o0; o < o1; ++o) {
        const uint8_t* row = w.base + size_t(o) * w.rowBytes;
        std::fill_n(acc, p.rows, 0.0f);
        for (int64_t i = 0; i < p.k; i += chunk) {
            dequantize(w.type, row + dtypeBytes(w.type, i), decoded, chunk);
            for (int64_t s = 0; s < p.rows; ++s) acc[s] += detail::dotRow(p.x + s * p.k + i, decoded, chunk);
        }
        for (int64_t s = 0; s < p.rows; ++s) y[s * p.out + o] = fromF32<Y>(acc[s]);
    }
}

// n weight rows from row `first` on, widened or decoded to F32.
template <class W>
void widenRows(const W* w, int64_t first, int64_t n, int64_t k, float* dst) {
    const W* src = w + first * k;
    for (int64_t i = 0; i < n * k; ++i) dst[i] = detail::toF32(src[i]);
}
inline void widenRows(const BlockRows& w, int64_t first, int64_t n, int64_t k, float* dst) {
    for (int64_t r = 0; r < n; ++r) dequantize(w.type, w.base + size_t(first + r) * w.rowBytes, dst + r * k, k);
}

// Output columns [o0, o1) for all x rows, a block of weight rows at a time. The block is
// widened into F32 scratch padded with zero rows (as x is), so every tile is a full one.
template <class W, class Y>
void blockedRows(const Problem& p, const W& w, Y* y, int64_t o0, int64_t o1) {
    thread_local std::vector<float> scratch;
    scratch.resize(size_t(kBlockRows * p.k));
    for (int64_t ob = o0; ob < o1; ob += kBlockRows) {
        int64_t n = std::min(kBlockRows, o1 - ob);
        widenRows(w, ob, n, p.k, scratch.data());
        int64_t padded = (n + kTileW - 1) / kTileW * kTileW;
        std::fill(scratch.begin() + n * p.k, scratch.begin() + padded * p.k, 0.0f);
        for (int64_t s = 0; s < p.rows; s += kTileX) {
            int validX = int(std::min<int64_t>(kTileX, p.rows - s));
            for (int64_t o = 0; o < n; o += kTileW) {
                float acc[kTileX][kTileW];
                dotTile<kTileX, kTileW>(p.x + s * p.k, p.k, scratch.data() + o * p.k, p.k, p.k, acc);
                int validW = int(std::min<int64_t>(kTileW, n - o));
                for (int r = 0; r < validX; ++r)
                    for (int c = 0; c < validW; ++c) y[(s + r) * p.out + ob + o + c] = fromF32<Y>(acc[r][c]);
            }
        }
    }
}

template <class W, class Y>
void run(const Problem& p, bool blocked, const W& w, Y* y) {
    int64_t group = blocked ? kBlockRows : 1;
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
    const OpScope profile(OpKind::LinearTransformation);
    constexpr const char* op = "LinearTransformation";
    detail::requireFloat(op, x, "x");
    if (!detail::isFloatType(weights.dtype()) && weights.dtype() != DType::F16 && !isQuantized(weights.dtype()))
        detail::fail(op, std::string("weights ") + weights.shapeStr() + " must be a float or quantized weight type, got " +
                             dtypeName(weights.dtype()));
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
    // x is small next to the weights: widen it to F32 once rather than in every tile (and pad
    // it to whole tiles for the blocked path).
    std::vector<float> xf;
    bool blocked = p.rows >= kPrefillMinRows;
    if (x.dtype() == DType::F32 && !blocked) {
        p.x = x.data<float>();
    } else {
        xf.assign(size_t((p.rows + kTileX - 1) / kTileX * kTileX * k), 0.0f);
        detail::visitFloat(x.dtype(), [&](auto tag) {
            const auto* xs = x.data<decltype(tag)>();
            for (int64_t i = 0; i < x.numel(); ++i) xf[size_t(i)] = detail::toF32(xs[i]);
        });
        p.x = xf.data();
    }
#ifdef __AVX512BW__
    std::vector<float> xi;
    if (!blocked && weights.dtype() == DType::BF16) {
        xi.resize(size_t(p.rows * k));
        for (int64_t s = 0; s < p.rows; ++s) detail::interleaveForUnpack(p.x + s * k, k, xi.data() + s * k);
        p.xi = xi.data();
    }
#endif
    if (!detail::isFloatType(weights.dtype())) {
        BlockRows w{weights.dtype(), weights.data<uint8_t>(), dtypeBytes(weights.dtype(), k)};
        detail::visitFloat(x.dtype(), [&](auto yTag) { run(p, blocked, w, y.mutableData<decltype(yTag)>()); });
        return y;
    }
    detail::visitFloat(weights.dtype(), [&](auto wTag) {
        using W = decltype(wTag);
        detail::visitFloat(x.dtype(), [&](auto yTag) {
            using Y = decltype(yTag);
            run(p, blocked, weights.data<W>(), y.mutableData<Y>());
        });
    });
    return y;
}

}  // namespace llama::ml
