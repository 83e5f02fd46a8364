// LinearTransformation: y = x · Wᵀ, the op where inference spends its time.
//
// Decode (one token) reads every weight exactly once, so it is bound by memory bandwidth:
// the weights are streamed from their stored form (BF16, or a GGUF block format) row after
// row and dotted with x by a kernel of the CPU's instruction set (kernels/kernel_set.h).
// Block-quantized weights are multiplied in integer arithmetic: x is quantized to 8-bit
// blocks once per call, and each block's dot product is a sum of small-integer products,
// scaled once per block.
// Prefill (many tokens) does seqLen multiply-adds per weight, so no weight may be re-read
// per token: quantized weights are unpacked a block of rows at a time into int16 panels in
// cache, and multiplied with x quantized and interleaved a vector's width of rows at a time
// (kernel_set.h), so each weight load serves 8 or 16 tokens (Q8_0 and Q4_0 weights stay bytes
// where the CPU has 8-bit dot products: byte panels, four products per int32 lane; on relaxed
// SIMD, Q4_0's and the K-quants' small values stay bytes too: small-value panels); BF16 weights
// with BF16 x are multiplied as they are stored, widened in registers as they are loaded (AVX2,
// AVX-512); otherwise (F32 weights, F32 x, the generic path) weights are widened to F32 a block
// of rows at a time into cache-resident scratch, then multiplied kTileX x rows by kTileW weight
// rows in registers. Every one of these ways adds a dot product's terms in the same canonical
// order (dot_kernels.h), so decode, prefill and batches give the same bits.
// Either way the output rows are split across the shared thread pool. Which of these ways a call
// takes is its weights' LinearPlan (linear_plan.h), made when the model binds them.
// F16 weights, and every quantized type on the "reference" path, are decoded to F32 a row at a
// time (dequantize()): the straightforward method, kept as the reference the integer
// kernels are tested against.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tensor/quant_blocks.h"

#include "ml/bf16_products.h"
#include "ml/cache_line_vector.h"
#include "ml/dot_kernels.h"
#include "ml/kernels/activation_quant.h"
#include "ml/kernels/kernel_set.h"
#include "ml/linear_plan.h"
#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

using detail::dotTile;
using detail::fromF32;
using detail::kBF16BlockRows;
using detail::kBlockRows;
using detail::kQuantBlockRows;
using detail::kTileW;
using detail::kTileX;
using kernels::kMaxRows;

// Below this many multiply-adds per chunk (weights x x rows), handing a chunk to another thread
// costs more than it saves. Counting the rows lets a small model's prefill split its matrices
// (dim 64: 4,096 weights, 62 rows), which counting weights alone kept on one thread.
constexpr int64_t kMinChunkProducts = 32768;

struct Problem {
    const kernels::KernelSet& kernel;  // the plan's path
    const float* x;  // [rows, k] in F32; on the Tiles route padded with zero rows to a multiple of kTileX
    int64_t rows, k, out;
    bool add = false;  // y += the product (each output summed from +0 first), where y = the product otherwise
};

// An output value: the product, or (AddLinearTransformation) the product added to what y held,
// one addition, as a separate sum would have been added.
template <class Y>
inline void put(const Problem& p, Y& y, float v) {
    if constexpr (std::is_same_v<Y, float>) {
        if (p.add) {
            y += v;
            return;
        }
    }
    y = fromF32<Y>(v);
}

// Weights in a block format (F16, Q8_0, ...): rows of rowBytes bytes.
struct BlockRows {
    DType type;
    const uint8_t* base;
    size_t rowBytes;
};

// ---- dispatched kernels: BF16 and integer quantized ---------------------------------------

// One weight row against every x row, kMaxRows at a time; results to y[s * out + o].
template <class Y, class Dot>
void dotAllRows(const Problem& p, int64_t o, Y* y, Dot&& dot) {
    float acc[kMaxRows];
    for (int64_t s = 0; s < p.rows; s += kMaxRows) {
        int nx = int(std::min<int64_t>(kMaxRows, p.rows - s));
        dot(s, nx, acc);
        for (int r = 0; r < nx; ++r) put(p, y[(s + r) * p.out + o], acc[r]);
    }
}

// BF16 weights with one BF16 x row as stored (BF16Pair), or F32 x rows (BF16Dots).
template <class Y>
void bf16PairRows(const Problem& p, const uint16_t* x, const uint16_t* w, Y* y, int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) put(p, y[o], p.kernel.dotBF16Pair(x, w + o * p.k, p.k));
}

template <class Y>
void bf16DotRows(const Problem& p, const uint16_t* w, Y* y, int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o)
        dotAllRows(p, o, y, [&](int64_t s, int nx, float* acc) {
            p.kernel.dotBF16(p.x + s * p.k, p.k, nx, w + o * p.k, p.k, acc);
        });
}

// Quantized weights against x quantized to their blocks (XBlock: BlockQ8x32 or BlockQ8x256,
// [rows, blocks]) with the plan's dot kernel for them.
template <class Y, class XBlock, class Dot>
void quantizedRows(const Problem& p, const BlockRows& w, const XBlock* xq, Dot dot, Y* y, int64_t o0, int64_t o1) {
    const int64_t blocks = p.k / dtypeBlockSize(w.type);
    // A block of weight rows stays in L1 while each group of x rows passes over all of them.
    for (int64_t ob = o0; ob < o1; ob += kQuantBlockRows) {
        int64_t oe = std::min(o1, ob + kQuantBlockRows);
        for (int64_t s = 0; s < p.rows; s += kMaxRows) {
            int nx = int(std::min<int64_t>(kMaxRows, p.rows - s));
            float acc[kMaxRows];
            for (int64_t o = ob; o < oe; ++o) {
                dot(w.base + size_t(o) * w.rowBytes, xq + s * blocks, blocks, nx, blocks, acc);
                for (int r = 0; r < nx; ++r) put(p, y[(s + r) * p.out + o], acc[r]);
            }
        }
    }
}

// Quantized prefill: each block of weight rows is unpacked once (unpack(first row, rows), into
// thread-local scratch, in L2), then multiplied with every group of x rows, kernel.panelRows
// weight rows per multiply(group, first row in the block, rows, out) call.
template <class Y, class Unpack, class Multiply>
void panelBlocks(const Problem& p, const BlockRows& w, int lanes, int64_t groups, Unpack&& unpack, Multiply&& multiply,
                 Y* y, int64_t o0, int64_t o1) {
    const int panelRows = p.kernel.panelRows;
    std::vector<float> out(size_t(panelRows * lanes));
    for (int64_t ob = o0; ob < o1; ob += kQuantBlockRows) {
        const int64_t n = std::min(kQuantBlockRows, o1 - ob);
        unpack(w.base + size_t(ob) * w.rowBytes, n);
        // The next block's weights start coming from memory while this one is multiplied
        // (unpacking waited for them: 15% of Q8_0 prefill at 32 tokens).
        const uint8_t* next = w.base + size_t(ob + n) * w.rowBytes;
        const size_t nextBytes = size_t(std::min(kQuantBlockRows, o1 - ob - n)) * w.rowBytes;
        for (size_t b = 0; ob + n < o1 && b < nextBytes; b += 64) __builtin_prefetch(next + b, 0, 2);
        for (int64_t g = 0; g < groups; ++g) {
            const int64_t validLanes = std::min<int64_t>(lanes, p.rows - g * lanes);
            for (int64_t r0 = 0; r0 < n; r0 += panelRows) {
                const int nr = int(std::min<int64_t>(panelRows, n - r0));
                multiply(g, r0, nr, out.data());
                for (int r = 0; r < nr; ++r)
                    for (int64_t lane = 0; lane < validLanes; ++lane)
                        put(p, y[(g * lanes + lane) * p.out + ob + r0 + r], out[size_t(r * lanes + lane)]);
            }
        }
    }
}

struct PanelWeights {
    kernels::BlockFormat format;
    BlockRows w;
    const kernels::PackedActivations* x;
};

// Int16 panels (every quantized format).
template <class Y>
void panelRows(const Problem& p, const PanelWeights& pw, Y* y, int64_t o0, int64_t o1) {
    const kernels::KernelSet& kernel = p.kernel;
    const kernels::PackedActivations& x = *pw.x;
    thread_local std::vector<int16_t> q, mins;
    thread_local std::vector<float> d, dmin;
    q.resize(size_t(kQuantBlockRows * p.k));
    d.resize(size_t(kQuantBlockRows * x.blocks));
    const bool minsToo = pw.format == kernels::BlockFormat::Q4_K;  // only Q4_K has minimums
    dmin.resize(minsToo ? d.size() : 0);
    mins.resize(minsToo ? d.size() * 8 : 0);
    const kernels::Int16Rows panel{q.data(), d.data(), mins.data(), dmin.data()};
    panelBlocks(
        p, pw.w, x.lanes, x.groups,
        [&](const uint8_t* rows, int64_t n) { kernel.unpackRows(pw.format, rows, pw.w.rowBytes, n, p.k, panel); },
        [&](int64_t g, int64_t r0, int nr, float* out) { kernel.panel(pw.format, panel, r0, nr, p.k, x.group(g), out); }, y, o0, o1);
}

// Byte panels (Q8_0 and Q4_0 where the CPU has 8-bit dot products).
template <class Y>
void bytePanelRows(const Problem& p, const PanelWeights& pw, Y* y, int64_t o0, int64_t o1) {
    const kernels::KernelSet& kernel = p.kernel;
    const kernels::PackedActivations& x = *pw.x;
    thread_local std::vector<int8_t> q;
    thread_local std::vector<float> d;
    thread_local std::vector<int32_t> offset;
    q.resize(size_t(kQuantBlockRows * p.k));
    d.resize(size_t(kQuantBlockRows * x.blocks));
    offset.resize(d.size());
    const kernels::ByteRows panel{q.data(), d.data(), offset.data()};
    panelBlocks(
        p, pw.w, x.lanes, x.groups,
        [&](const uint8_t* rows, int64_t n) { kernel.unpackByteRows(pw.format, rows, pw.w.rowBytes, n, p.k, panel); },
        [&](int64_t g, int64_t r0, int nr, float* out) { kernel.bytePanel(panel, r0, nr, p.k, x.byteGroup(g), out); }, y, o0, o1);
}

// Small-value panels (Q4_0 and the K-quants on relaxed SIMD).
template <class Y>
void smallValuePanelRows(const Problem& p, const PanelWeights& pw, Y* y, int64_t o0, int64_t o1) {
    const kernels::KernelSet& kernel = p.kernel;
    const kernels::PackedActivations& x = *pw.x;
    thread_local std::vector<uint8_t> q;
    thread_local std::vector<int16_t> scales, coefs;
    thread_local std::vector<float> d, dmin;
    q.resize(size_t(kQuantBlockRows * p.k));
    d.resize(size_t(kQuantBlockRows * x.blocks));
    scales.resize(size_t(kQuantBlockRows * p.k / 16));
    coefs.resize(scales.size());
    dmin.resize(pw.format == kernels::BlockFormat::Q4_K ? d.size() : 0);
    const kernels::SmallValueRows panel{q.data(), d.data(), scales.data(), coefs.data(), dmin.data()};
    panelBlocks(
        p, pw.w, x.lanes, x.groups,
        [&](const uint8_t* rows, int64_t n) { kernel.unpackSmallValueRows(pw.format, rows, pw.w.rowBytes, n, p.k, panel); },
        [&](int64_t g, int64_t r0, int nr, float* out) { kernel.smallValuePanel(pw.format, panel, r0, nr, p.k, x.signedGroup(g), out); }, y,
        o0, o1);
}

// BF16 x and weights with the path's BF16 kernel: a block of weight rows at a time (in L2
// while every x row passes over it), straight from the stored values (x as stored, or as the
// path's prepareRows left it).
template <class Y>
void nativeBF16Rows(const Problem& p, const uint16_t* x, const uint16_t* w, Y* y, int64_t o0, int64_t o1) {
    thread_local std::vector<float> block;
    for (int64_t ob = o0; ob < o1; ob += kBF16BlockRows) {
        const int64_t n = std::min(kBF16BlockRows, o1 - ob);
        if constexpr (std::is_same_v<Y, float>) {  // an F32 result (mixed precision's): written where it goes
            if (!p.add) {
                p.kernel.bf16Rows(x, p.rows, w + ob * p.k, n, p.k, y + ob, p.out);
                continue;
            }
        }
        // Into a block in L2, then added or converted (a whole product made apart and then added
        // to a weight's gradient had been written out and read back from memory).
        block.resize(size_t(p.rows * n));
        p.kernel.bf16Rows(x, p.rows, w + ob * p.k, n, p.k, block.data(), n);
        for (int64_t s = 0; s < p.rows; ++s)
            for (int64_t c = 0; c < n; ++c) put(p, y[s * p.out + ob + c], block[size_t(s * n + c)]);
    }
}

// ---- F32 weights, F16 weights and the reference path ---------------------------------------

// Output columns [o0, o1), each weight row read from memory once for all x rows (x rows are
// few here, and a weight row stays in L1 while every x row passes over it).
template <class W, class Y>
void streamRows(const Problem& p, const W* w, Y* y, int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o)
        for (int64_t s = 0; s < p.rows; ++s) put(p, y[s * p.out + o], detail::dotRow(p.x + s * p.k, w + o * p.k, p.k));
}

// The same for block formats: the row is decoded to F32 scratch (thread-local, in L1 or L2), then
// every x row is dotted with it whole, so its sums are those of the blocked path.
template <class Y>
void streamRows(const Problem& p, const BlockRows& w, Y* y, int64_t o0, int64_t o1) {
    thread_local std::vector<float> decoded;
    decoded.resize(size_t(p.k));
    for (int64_t o = o0; o < o1; ++o) {
        dequantize(w.type, w.base + size_t(o) * w.rowBytes, decoded.data(), p.k);
        for (int64_t s = 0; s < p.rows; ++s) put(p, y[s * p.out + o], detail::dotRow(p.x + s * p.k, decoded.data(), p.k));
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
                    for (int c = 0; c < validW; ++c) put(p, y[(s + r) * p.out + ob + o + c], acc[r][c]);
            }
        }
    }
}

// ---- splitting the output rows over the pool ------------------------------------------------

// fn(o0, o1) over the output rows, in groups of `group` rows, enough weights per chunk.
template <class Fn>
void forOutputRows(const Problem& p, int64_t group, Fn&& fn) {
    int64_t groups = (p.out + group - 1) / group;
    int64_t minGroups = std::max<int64_t>(1, kMinChunkProducts / (group * p.k * std::max<int64_t>(1, p.rows)));
    ThreadPool::global().parallelFor(
        groups, [&](int64_t g0, int64_t g1) { fn(g0 * group, std::min(p.out, g1 * group)); }, minGroups);
}

// Quantizes every x row to the activation blocks that match weight type t.
std::vector<uint8_t> quantizeX(const float* x, const Problem& p, DType t) {
    const bool superBlocks = dtypeBlockSize(t) == 256;
    const size_t blockBytes = superBlocks ? sizeof(kernels::BlockQ8x256) : sizeof(kernels::BlockQ8x32);
    const int64_t blocks = p.k / dtypeBlockSize(t);
    std::vector<uint8_t> xq(size_t(p.rows * blocks) * blockBytes);
    for (int64_t s = 0; s < p.rows; ++s) {
        uint8_t* dst = xq.data() + size_t(s * blocks) * blockBytes;
        if (superBlocks)
            kernels::quantizeRowQ8x256(x + s * p.k, p.k, reinterpret_cast<kernels::BlockQ8x256*>(dst));
        else
            kernels::quantizeRowQ8x32(x + s * p.k, p.k, reinterpret_cast<kernels::BlockQ8x32*>(dst));
    }
    return xq;
}

// x in the form a step reads it (XForm).
struct PreparedX {
    const float* f32 = nullptr;         // [rows, k]: every form but AsStored
    CacheLineVector<float> widened;     // f32's values when x is not F32, or is padded
    std::vector<uint8_t> quantized;     // Quantized: [rows, blocks] of BlockQ8x32 or BlockQ8x256
    kernels::PackedActivations packed;  // Packed, PackedBytes, PackedSigned
    CacheLineVector<uint16_t> prepared;  // Prepared: KernelSet::prepareRows's rows
};

// Into px, whose buffers an earlier call may have left (ReadyX keeps a thread's).
void prepareX(PreparedX& px, const Tensor& x, const Problem& p, XForm form, DType weights) {
    px.f32 = nullptr;
    if (form == XForm::AsStored) return;
    if (form == XForm::Prepared) {
        // prepareRows writes every value: a buffer kept from a larger call is not zeroed again.
        const size_t n = size_t(p.rows * p.kernel.preparedRowLength(p.k));
        if (px.prepared.size() < n) px.prepared.resize(n);
        p.kernel.prepareRows(x.data<uint16_t>(), p.rows, p.k, px.prepared.data());
        return;
    }
    if (x.dtype() == DType::F32 && form != XForm::F32Padded) {
        px.f32 = x.data<float>();
    } else {
        // x is small next to the weights: widen it to F32 once rather than in every tile.
        px.widened.assign(size_t((p.rows + kTileX - 1) / kTileX * kTileX * p.k), 0.0f);
        detail::visitFloat(x.dtype(), [&](auto tag) {
            const auto* xs = x.data<decltype(tag)>();
            for (int64_t i = 0, n = x.numel(); i < n; ++i) px.widened[size_t(i)] = detail::toF32(xs[i]);
        });
        px.f32 = px.widened.data();
    }
    if (form == XForm::Quantized) px.quantized = quantizeX(px.f32, p, weights);
    if (form == XForm::Packed)  // Q4_K's minimums need each sub-block's sum of x
        px.packed =
            kernels::packActivations(px.f32, p.rows, p.k, dtypeBlockSize(weights), weights == DType::Q4_K, p.kernel.lanes);
    if (form == XForm::PackedBytes) px.packed = kernels::packActivationBytes(px.f32, p.rows, p.k, p.kernel.lanes);
    if (form == XForm::PackedSigned)
        px.packed = kernels::packActivationsSigned(px.f32, p.rows, p.k, dtypeBlockSize(weights), p.kernel.lanes);
}

BlockRows blockRows(const Tensor& weights, int64_t k) {
    return {weights.dtype(), weights.data<uint8_t>(), dtypeBytes(weights.dtype(), k)};
}

// fn(weights) as the Stream and Tiles routes read them: F32 or BF16 in place, other types (F16,
// and block formats on the reference path) as block rows to decode.
template <class Fn>
void visitWeights(const Tensor& weights, int64_t k, Fn&& fn) {
    if (detail::isFloatType(weights.dtype()))
        detail::visitFloat(weights.dtype(), [&](auto tag) { fn(weights.data<decltype(tag)>()); });
    else
        fn(blockRows(weights, k));
}

// x made ready (PreparedX) where a chunk's thread reads it. On two cores a line one core wrote and
// the other then read costs 100-450 ns to write again (docs/speed.md, "Two threads on a small
// model"), and a heap block comes back to the thread that frees it: x made ready once by the
// calling thread, into the block the other threads read in the call before, cost a small model's
// prefill more than its matrix product (the bundled model's 256 x 256 products at 62 rows ran
// slower on two threads than on one). So a small x is
// made ready by each thread for itself, from x as stored, on its first chunk of the call: the
// same values, in blocks only that thread writes. A large one is made ready once and shared, as
// copying it per thread would cost more than the shared lines do.
class ReadyX {
public:
    ReadyX(const Tensor& x, const Problem& p, XForm form, DType weights)
        : x_(x), p_(p), form_(form), weights_(weights), call_(++calls_),
          perThread_(ThreadPool::global().threadCount() > 1 && x.numel() * int64_t(sizeof(float)) <= kPerThreadBytes) {
        if (!perThread_) prepareX(shared_, x, p, form, weights);
    }
    const PreparedX& forThisThread() const {
        if (!perThread_) return shared_;
        thread_local Mine mine;
        if (mine.call != call_) {
            prepareX(mine.px, x_, p_, form_, weights_);
            mine.call = call_;
        }
        return mine.px;
    }

private:
    struct Mine {
        uint64_t call = 0;
        PreparedX px;
    };
    static constexpr int64_t kPerThreadBytes = int64_t(1) << 20;  // x as F32; in L2 on every core
    static inline std::atomic<uint64_t> calls_{0};

    const Tensor& x_;
    const Problem& p_;
    XForm form_;
    DType weights_;
    uint64_t call_;  // which call a thread's PreparedX was made for
    bool perThread_;
    PreparedX shared_;
};

template <class Y>
void runStep(const Problem& p, const LinearStep& step, const LinearPlan& plan, const Tensor& x, const ReadyX& ready,
             const Tensor& weights, Y* y) {
    // fn(problem with the thread's x, the thread's PreparedX, o0, o1) over the output rows.
    auto forRows = [&](auto&& fn) {
        forOutputRows(p, step.rowsPerTask, [&](int64_t o0, int64_t o1) {
            const PreparedX& px = ready.forThisThread();
            Problem q = p;
            q.x = px.f32;
            fn(q, px, o0, o1);
        });
    };
    switch (step.route) {
        case LinearRoute::QuantizedDots: {
            const BlockRows w = blockRows(weights, p.k);
            if (plan.dot32)
                return forRows([&](const Problem& q, const PreparedX& px, int64_t o0, int64_t o1) {
                    quantizedRows(q, w, reinterpret_cast<const kernels::BlockQ8x32*>(px.quantized.data()), plan.dot32, y, o0, o1);
                });
            return forRows([&](const Problem& q, const PreparedX& px, int64_t o0, int64_t o1) {
                quantizedRows(q, w, reinterpret_cast<const kernels::BlockQ8x256*>(px.quantized.data()), plan.dot256, y, o0, o1);
            });
        }
        case LinearRoute::Int16Panels:
            return forRows([&](const Problem& q, const PreparedX& px, int64_t o0, int64_t o1) {
                panelRows(q, PanelWeights{plan.format, blockRows(weights, p.k), &px.packed}, y, o0, o1);
            });
        case LinearRoute::BytePanels:
            return forRows([&](const Problem& q, const PreparedX& px, int64_t o0, int64_t o1) {
                bytePanelRows(q, PanelWeights{plan.format, blockRows(weights, p.k), &px.packed}, y, o0, o1);
            });
        case LinearRoute::SmallValuePanels:
            return forRows([&](const Problem& q, const PreparedX& px, int64_t o0, int64_t o1) {
                smallValuePanelRows(q, PanelWeights{plan.format, blockRows(weights, p.k), &px.packed}, y, o0, o1);
            });
        case LinearRoute::BF16Pair:
            return forRows([&](const Problem& q, const PreparedX&, int64_t o0, int64_t o1) {
                bf16PairRows(q, x.data<uint16_t>(), weights.data<uint16_t>(), y, o0, o1);
            });
        case LinearRoute::BF16Dots:
            return forRows([&](const Problem& q, const PreparedX&, int64_t o0, int64_t o1) { bf16DotRows(q, weights.data<uint16_t>(), y, o0, o1); });
        case LinearRoute::BF16Tiles:
            return forRows([&](const Problem& q, const PreparedX& px, int64_t o0, int64_t o1) {
                const uint16_t* xs = step.x == XForm::Prepared ? px.prepared.data() : x.data<uint16_t>();
                nativeBF16Rows(q, xs, weights.data<uint16_t>(), y, o0, o1);
            });
        case LinearRoute::Stream:
            return visitWeights(weights, p.k, [&](const auto& w) {
                forRows([&](const Problem& q, const PreparedX&, int64_t o0, int64_t o1) { streamRows(q, w, y, o0, o1); });
            });
        case LinearRoute::Tiles:
            return visitWeights(weights, p.k, [&](const auto& w) {
                forRows([&](const Problem& q, const PreparedX&, int64_t o0, int64_t o1) { blockedRows(q, w, y, o0, o1); });
            });
    }
}

// x against weights checked; the product's shape.
Shape linearShape(const Tensor& x, const Tensor& weights) {
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
    return outShape;
}

// y = x · weightsᵀ, or y += it (add), the way `plan` says, which is made for weights' dtype and the
// active path.
void multiplyInto(Tensor& y, bool add, const Tensor& x, const Tensor& weights, const LinearPlan& plan) {
    const int64_t k = weights.dim(1);
    Problem p{*plan.kernels, nullptr, k ? x.numel() / k : 0, k, weights.dim(0), add};
    if (p.rows == 0 || p.out == 0) return;
    const LinearStep& step = plan.step(p.rows, x.dtype());
    const ReadyX ready(x, p, step.x, plan.weights);
    detail::visitFloat(y.dtype(), [&](auto yTag) { runStep(p, step, plan, x, ready, weights, y.mutableData<decltype(yTag)>()); });
}

// y = x · weightsᵀ in `result`'s dtype.
Tensor linear(const Tensor& x, const Tensor& weights, const LinearPlan& plan, DType result) {
    const OpScope profile(OpKind::LinearTransformation);
    const Shape outShape = linearShape(x, weights);
    if (!x.hasData() || !weights.hasData()) return Tensor::shapeOnly(outShape, result);
    Tensor y = Tensor::uninitialized(outShape, result);
    multiplyInto(y, false, x, weights, plan);
    return y;
}

// Inside a BF16Products scope (training's mixed precision), F32 x and weights as BF16 operands.
bool bf16Operands(const Tensor& x, const Tensor& weights) {
    return BF16Products::active() && x.dtype() == DType::F32 && weights.dtype() == DType::F32 && x.hasData() && weights.hasData();
}

Tensor bf16Linear(const Tensor& x, const Tensor& weights) {
    const OpScope profile(OpKind::LinearTransformation);
    return LinearTransformation(ToBFloat16(x), BF16Products::active()->rounded(weights), DType::F32);
}

}  // namespace

Tensor LinearTransformation(const Tensor& x, const Tensor& weights) {
    if (bf16Operands(x, weights)) return bf16Linear(x, weights);
    return linear(x, weights, LinearPlan(weights.dtype(), kernels::active()), x.dtype());
}

Tensor LinearTransformation(const Tensor& x, const Tensor& weights, DType result) {
    if (!detail::isFloatType(result)) detail::fail("LinearTransformation", std::string("the result must be F32 or BF16, not ") + dtypeName(result));
    return linear(x, weights, LinearPlan(weights.dtype(), kernels::active()), result);
}

Tensor LinearTransformation(const Tensor& x, const LinearWeights& weights) {
    if (bf16Operands(x, weights)) return bf16Linear(x, weights);
    const LinearPlan& plan = weights.plan();
    if (plan.kernels == &kernels::active() && plan.weights == weights.dtype()) return linear(x, weights, plan, x.dtype());
    // The path was switched since the plan was made (or the weights replaced through their Tensor).
    return LinearTransformation(x, static_cast<const Tensor&>(weights));
}

void AddLinearTransformation(Tensor& sum, const Tensor& x, const Tensor& weights) {
    const OpScope profile(OpKind::LinearTransformation);
    constexpr const char* op = "AddLinearTransformation";
    const Shape outShape = linearShape(x, weights);
    detail::requireDType(op, sum, DType::F32, "sum");
    if (sum.shape() != outShape) detail::fail(op, "sum " + sum.shapeStr() + " is not the shape of x · weightsᵀ, " + x.shapeStr() + " by " + weights.shapeStr());
    if (!sum.hasData() || !x.hasData() || !weights.hasData()) detail::fail(op, "sum, x and weights need values");
    multiplyInto(sum, true, x, weights, LinearPlan(weights.dtype(), kernels::active()));
}

}  // namespace llama::ml
