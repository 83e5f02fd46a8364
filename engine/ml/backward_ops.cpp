// The backward pass's operations (backward_ops.h). Rows go to the thread pool; inside a row every
// sum is a plain loop in index order (contraction is off project-wide), so the bits do not depend
// on the CPU's vector width or the number of threads.
#include "ml/backward_ops.h"

#include <cmath>
#include <vector>

#include "ml/bf16_products.h"
#include "ml/exp_approx.h"
#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/row_products.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

using detail::fail;

void requireF32(const char* op, const Tensor& t, const char* role) {
    detail::requireDType(op, t, DType::F32, role);
    if (!t.hasData()) fail(op, std::string(role) + " " + t.shapeStr() + " has no values (a dry run does not train)");
}

void requireSameShape(const char* op, const Tensor& a, const char* aRole, const Tensor& b, const char* bRole) {
    if (a.shape() != b.shape()) fail(op, std::string(aRole) + " " + a.shapeStr() + " and " + bRole + " " + b.shapeStr() + " differ in shape");
}

// A forward value and its result's gradient, as an elementwise or row-wise backward takes them.
void requireValueAndGradient(const char* op, const Tensor& value, const char* role, const Tensor& dy) {
    requireF32(op, value, role);
    requireF32(op, dy, "dy");
    requireSameShape(op, value, role, dy, "dy");
}

// Rows of the last dimension, split over the pool.
template <class Fn> void forEachRow(int64_t rows, int64_t rowLength, Fn fn) {
    const int64_t grain = std::max<int64_t>(1, detail::kElementsPerTask / std::max<int64_t>(1, rowLength));
    ThreadPool::global().parallelFor(rows, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) fn(r);
    }, grain);
}

float sigmoid(float x) { return 1.0f / (1.0f + detail::expApprox(-x)); }

// out (M × N) = A·B, or out += A·B with the product summed on its own first, in tiles of rows
// over the pool; A(m, k) = a[m * aRow + k * aK], B row-major (row_products.h: every output adds
// its K products in increasing k).
template <class B_>
void productInto(float* out, bool accumulate, const float* a, int64_t aRow, int64_t aK, int64_t M, const B_* b, int64_t ldb, int64_t K, int64_t N) {
    const int64_t tiles = (M + detail::kTileRows - 1) / detail::kTileRows;
    ThreadPool::global().parallelFor(tiles, [&](int64_t t0, int64_t t1) {
        // The chunk's rows of A packed at once (see packRows), then a tile of them at a time.
        const int64_t m0 = t0 * detail::kTileRows, m1 = std::min(M, t1 * detail::kTileRows);
        std::vector<float> panel, tile(size_t(detail::kTileRows * N));
        detail::packRows(a + m0 * aRow, aRow, aK, m1 - m0, K, panel);
        for (int64_t m = m0; m < m1; m += detail::kTileRows) {
            const int rows = int(std::min<int64_t>(detail::kTileRows, m1 - m));
            const float* p = panel.data() + (m - m0) * K;
            float* o = out + m * N;
            if (!accumulate) {
                detail::packedRowsTimesColumns(p, rows, b, ldb, K, N, o, N);
                continue;
            }
            detail::packedRowsTimesColumns(p, rows, b, ldb, K, N, tile.data(), N);
            for (int64_t i = 0; i < rows * N; ++i) o[i] += tile[size_t(i)];
        }
    });
}

}  // namespace

CrossEntropyResult CrossEntropy(const Tensor& logits, const Tensor& targets) {
    const OpScope profile(OpKind::CrossEntropy);
    constexpr const char* op = "CrossEntropy";
    requireF32(op, logits, "logits");
    detail::requireDType(op, targets, DType::I32, "targets");
    if (logits.rank() != 2 || targets.rank() != 1 || targets.dim(0) != logits.dim(0))
        fail(op, "logits " + logits.shapeStr() + " and targets " + targets.shapeStr() + " do not pair up (expected [N, V] and [N])");
    const int64_t rows = logits.dim(0), vocab = logits.dim(1);
    const int32_t* target = targets.data<int32_t>();
    int64_t scored = 0;
    for (int64_t r = 0; r < rows; ++r) {
        if (target[r] < -1 || target[r] >= vocab)
            fail(op, "target " + std::to_string(target[r]) + " of row " + std::to_string(r) + " is outside the vocabulary [0, " + std::to_string(vocab) + ")");
        scored += target[r] >= 0;
    }
    CrossEntropyResult result;
    result.scored = scored;
    result.dLogits = Tensor(logits.shape(), DType::F32);
    if (scored == 0) return result;
    std::vector<double> rowLoss(static_cast<size_t>(rows), 0.0);
    const float* x = logits.data<float>();
    float* dx = result.dLogits.mutableData<float>();
    const float perRow = 1.0f / float(scored);
    forEachRow(rows, vocab, [&](int64_t r) {
        if (target[r] < 0) return;
        const float* xr = x + r * vocab;
        float* dr = dx + r * vocab;
        float max = xr[0];
        for (int64_t v = 1; v < vocab; ++v) max = xr[v] > max ? xr[v] : max;
        float sum = 0;
        for (int64_t v = 0; v < vocab; ++v) sum += (dr[v] = detail::expApprox(xr[v] - max));
        for (int64_t v = 0; v < vocab; ++v) dr[v] = dr[v] / sum * perRow;
        dr[target[r]] -= perRow;
        rowLoss[size_t(r)] = double(max) + std::log(double(sum)) - double(xr[target[r]]);
    });
    double total = 0;
    for (double l : rowLoss) total += l;
    result.loss = total / double(scored);
    return result;
}

Tensor SoftmaxBackward(const Tensor& y, const Tensor& dy) {
    const OpScope profile(OpKind::SoftmaxBackward);
    constexpr const char* op = "SoftmaxBackward";
    requireValueAndGradient(op, y, "y", dy);
    Tensor yc = Contiguous(y), dyc = Contiguous(dy);
    Tensor dx = Tensor::uninitialized(y.shape(), DType::F32);
    const int64_t n = y.dim(-1), rows = y.numel() / n;
    const float *yd = yc.data<float>(), *dyd = dyc.data<float>();
    float* dxd = dx.mutableData<float>();
    forEachRow(rows, n, [&](int64_t r) {
        const float *yr = yd + r * n, *dyr = dyd + r * n;
        float dot = 0;
        for (int64_t i = 0; i < n; ++i) dot += dyr[i] * yr[i];
        for (int64_t i = 0; i < n; ++i) dxd[r * n + i] = yr[i] * (dyr[i] - dot);
    });
    return dx;
}

RMSNormGradients RMSNormBackward(const Tensor& x, const Tensor& weight, const Tensor& dy, float eps) {
    const OpScope profile(OpKind::RMSNormBackward);
    constexpr const char* op = "RMSNormBackward";
    requireF32(op, x, "x");
    requireF32(op, weight, "weight");
    requireF32(op, dy, "dy");
    requireSameShape(op, x, "x", dy, "dy");
    if (weight.rank() != 1 || weight.dim(0) != x.dim(-1)) fail(op, "weight " + weight.shapeStr() + " does not match x " + x.shapeStr());
    const int64_t dim = x.dim(-1), rows = x.numel() / dim;
    RMSNormGradients g{Tensor::uninitialized(x.shape(), DType::F32), Tensor({dim}, DType::F32)};
    std::vector<float> rScale(static_cast<size_t>(rows));
    const float *xd = x.data<float>(), *w = weight.data<float>(), *dyd = dy.data<float>();
    float* dx = g.dx.mutableData<float>();
    forEachRow(rows, dim, [&](int64_t r) {
        const float *xr = xd + r * dim, *dyr = dyd + r * dim;
        float squares = 0, gx = 0;
        for (int64_t i = 0; i < dim; ++i) squares += xr[i] * xr[i];
        const float rs = 1.0f / std::sqrt(squares / float(dim) + eps);
        rScale[size_t(r)] = rs;
        for (int64_t i = 0; i < dim; ++i) gx += dyr[i] * w[i] * xr[i];
        const float correction = rs * rs * gx / float(dim);
        for (int64_t i = 0; i < dim; ++i) dx[r * dim + i] = rs * (dyr[i] * w[i] - xr[i] * correction);
    });
    // The weight's gradient sums over rows: one column per task, rows in order.
    float* dw = g.dWeight.mutableData<float>();
    ThreadPool::global().parallelFor(dim, [&](int64_t c0, int64_t c1) {
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = c0; c < c1; ++c) dw[c] += dyd[r * dim + c] * xd[r * dim + c] * rScale[size_t(r)];
    }, 64);
    return g;
}

Tensor SiluBackward(const Tensor& x, const Tensor& dy) {
    const OpScope profile(OpKind::SiluBackward);
    constexpr const char* op = "SiluBackward";
    requireValueAndGradient(op, x, "x", dy);
    Tensor dx = Tensor::uninitialized(x.shape(), DType::F32);
    const float *xd = x.data<float>(), *dyd = dy.data<float>();
    float* dxd = dx.mutableData<float>();
    ThreadPool::global().parallelFor(x.numel(), [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) {
            const float s = sigmoid(xd[i]);
            dxd[i] = dyd[i] * (s * (1.0f + xd[i] * (1.0f - s)));
        }
    }, detail::kElementsPerTask);
    return dx;
}

Tensor SumRepeated(const Tensor& a, int dim, int64_t repeats) {
    const OpScope profile(OpKind::SumRepeated);
    constexpr const char* op = "SumRepeated";
    requireF32(op, a, "a");
    if (dim < 0 || dim >= int(a.rank()) || repeats < 1 || a.dim(dim) % repeats != 0)
        fail(op, "dimension " + std::to_string(dim) + " of a " + a.shapeStr() + " is not a whole number of groups of " + std::to_string(repeats));
    Tensor ac = Contiguous(a);
    Shape shape = a.shape();
    shape[size_t(dim)] /= repeats;
    Tensor y(shape, DType::F32);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < dim; ++d) outer *= a.dim(d);
    for (int d = dim + 1; d < int(a.rank()); ++d) inner *= a.dim(d);
    const int64_t groups = shape[size_t(dim)];
    const float* ad = ac.data<float>();
    float* yd = y.mutableData<float>();
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t g = 0; g < groups; ++g)
            for (int64_t r = 0; r < repeats; ++r) {
                const float* src = ad + ((o * groups + g) * repeats + r) * inner;
                float* dst = yd + (o * groups + g) * inner;
                for (int64_t i = 0; i < inner; ++i) dst[i] += src[i];
            }
    return y;
}

Tensor Conjugate(const Tensor& a) {
    const OpScope profile(OpKind::RoPE);
    detail::requireDType("Conjugate", a, DType::Complex64, "a");
    Tensor y = Tensor::uninitialized(a.shape(), DType::Complex64);
    const Complex64* ad = a.data<Complex64>();
    Complex64* yd = y.mutableData<Complex64>();
    for (int64_t i = 0; i < a.numel(); ++i) yd[i] = std::conj(ad[i]);
    return y;
}

void AccumulateInto(Tensor& sum, const Tensor& a) {
    if (isFrozenGradient(sum)) return;
    const OpScope profile(OpKind::Accumulate);
    constexpr const char* op = "AccumulateInto";
    requireF32(op, sum, "sum");
    requireF32(op, a, "a");
    requireSameShape(op, sum, "sum", a, "a");
    Tensor ac = Contiguous(a);
    const float* ad = ac.data<float>();
    float* sd = sum.mutableData<float>();
    ThreadPool::global().parallelFor(sum.numel(), [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) sd[i] += ad[i];
    }, detail::kElementsPerTask);
}

void AddRowsInto(Tensor& table, const Tensor& tokens, const Tensor& rows) {
    if (isFrozenGradient(table)) return;
    const OpScope profile(OpKind::Accumulate);
    constexpr const char* op = "AddRowsInto";
    requireF32(op, table, "table");
    requireF32(op, rows, "rows");
    detail::requireDType(op, tokens, DType::I32, "tokens");
    if (table.rank() != 2 || rows.rank() != 2 || tokens.rank() != 1 || rows.dim(0) != tokens.dim(0) || rows.dim(1) != table.dim(1))
        fail(op, "rows " + rows.shapeStr() + " at tokens " + tokens.shapeStr() + " do not fit table " + table.shapeStr());
    const int64_t dim = table.dim(1);
    const int32_t* ids = tokens.data<int32_t>();
    const float* rd = rows.data<float>();
    float* td = table.mutableData<float>();
    for (int64_t s = 0; s < tokens.dim(0); ++s) {
        if (ids[s] < 0 || ids[s] >= table.dim(0))
            fail(op, "token " + std::to_string(ids[s]) + " is outside the table's " + std::to_string(table.dim(0)) + " rows");
        for (int64_t i = 0; i < dim; ++i) td[ids[s] * dim + i] += rd[s * dim + i];
    }
}

namespace {

void requireBackwardInput(const char* op, const Tensor& dy, const Tensor& weights) {
    requireF32(op, dy, "dy");
    detail::requireFloat(op, weights, "weights");
    if (dy.rank() != 2 || weights.rank() != 2 || dy.dim(1) != weights.dim(0))
        fail(op, "dy " + dy.shapeStr() + " does not match weights " + weights.shapeStr() + " (expected [S, out] and [out, in])");
}

// dx = dy · W, or dx += it (add).
void backwardInputInto(Tensor& dx, bool add, const Tensor& dy, const Tensor& weights) {
    // Mixed precision: dy and W as BF16 operands, Wᵀ's rows (rounded once a step) against dy's.
    if (BF16Products* mixed = BF16Products::active(); mixed && weights.dtype() == DType::F32) {
        if (add) return AddLinearTransformation(dx, ToBFloat16(dy), mixed->roundedTransposed(weights));
        dx = LinearTransformation(ToBFloat16(dy), mixed->roundedTransposed(weights), DType::F32);
        return;
    }
    // dx = dy · W: row s of dy against W's rows, which lie along dx's columns (no transpose).
    const Tensor dyc = Contiguous(dy), w = Contiguous(weights);
    const int64_t S = dy.dim(0), out = weights.dim(0), in = weights.dim(1);
    if (!add) dx = Tensor::uninitialized({S, in}, DType::F32);
    detail::visitFloat(w.dtype(), [&](auto wTag) {
        using W = decltype(wTag);
        productInto(dx.mutableData<float>(), add, dyc.data<float>(), out, 1, S, w.viewData<W>(), in, out, in);
    });
}

void requireBackwardWeights(const char* op, const Tensor& dWeights, const Tensor& dy, const Tensor& x) {
    requireF32(op, dWeights, "dWeights");
    requireF32(op, dy, "dy");
    requireF32(op, x, "x");
    if (dy.rank() != 2 || x.rank() != 2 || dy.dim(0) != x.dim(0) || dWeights.shape() != Shape{dy.dim(1), x.dim(1)})
        fail(op, "dy " + dy.shapeStr() + " and x " + x.shapeStr() + " do not make dWeights " + dWeights.shapeStr() + " (expected [S, out], [S, in], [out, in])");
}

}  // namespace

Tensor LinearBackwardInput(const Tensor& dy, const Tensor& weights) {
    const OpScope profile(OpKind::LinearBackward);
    requireBackwardInput("LinearBackwardInput", dy, weights);
    Tensor dx;
    backwardInputInto(dx, false, dy, weights);
    return dx;
}

void AddLinearBackwardInput(Tensor& dx, const Tensor& dy, const Tensor& weights) {
    const OpScope profile(OpKind::LinearBackward);
    constexpr const char* op = "AddLinearBackwardInput";
    requireBackwardInput(op, dy, weights);
    requireF32(op, dx, "dx");
    if (dx.shape() != Shape{dy.dim(0), weights.dim(1)}) fail(op, "dx " + dx.shapeStr() + " is not the shape of dy " + dy.shapeStr() + " · weights " + weights.shapeStr());
    backwardInputInto(dx, true, dy, weights);
}

void LinearBackwardWeights(Tensor& dWeights, const Tensor& dy, const Tensor& x) { LinearBackwardWeights({{dWeights, dy}}, x); }

void LinearBackwardWeights(std::initializer_list<WeightGradient> gradients, const Tensor& x) {
    const OpScope profile(OpKind::LinearBackward);
    constexpr const char* op = "LinearBackwardWeights";
    for (const WeightGradient& g : gradients)
        if (!isFrozenGradient(g.dWeights)) requireBackwardWeights(op, g.dWeights, g.dy, x);
    // dW += dyᵀ · x: dyᵀ is dy read down its columns, x's rows lie along dW's columns. The window's
    // product is summed from +0 over its S rows, then added to the gradient so far.
    if (BF16Products::active()) {
        // Mixed precision: dyᵀ's rows against xᵀ's, both rounded to BF16 (the kernels' BF16 tiles
        // dot rows, so both are transposed first; x once for every weight that reads it).
        Tensor xT;
        for (const WeightGradient& g : gradients) {
            if (isFrozenGradient(g.dWeights)) continue;
            if (!xT.hasData()) xT = TransposedBF16(x);
            AddLinearTransformation(g.dWeights, TransposedBF16(g.dy), xT);
        }
        return;
    }
    const Tensor xc = Contiguous(x);
    for (const WeightGradient& g : gradients) {
        if (isFrozenGradient(g.dWeights)) continue;
        const Tensor dyc = Contiguous(g.dy);
        const int64_t S = g.dy.dim(0), out = g.dy.dim(1), in = x.dim(1);
        productInto(g.dWeights.mutableData<float>(), true, dyc.data<float>(), 1, out, out, xc.data<float>(), in, S, in);
    }
}

}  // namespace llama::ml
