// Elementwise ops: Add, MultiplyElementwise, DivToScalar, Silu.
// BF16 follows PyTorch's CPU kernels: widen to F32, compute, round to BF16 once.
#include <algorithm>
#include <cmath>

#include "ml/exp_approx.h"
#include "ml/op_util.h"
#include "ml/ops.h"
#include "ml/thread_pool.h"

namespace llama::ml {

namespace {

using detail::fail;
using detail::fromF32;
using detail::toF32;

// How b lines up with a when b broadcasts over a (same rank after left-padding b's shape
// with 1s; each b dimension equals a's or is 1). a is walked in runs of `run` elements: the
// trailing dimensions where b matches a are contiguous in both, so a run is a plain loop and
// only the start of each run needs b's (strided) offset.
struct Broadcast {
    int64_t run = 1;
    Shape outerShape;              // a's dimensions before the run
    std::vector<int64_t> bStride;  // b's element stride for each outer dimension (0 if broadcast)
    bool bRunIsScalar = false;     // b's last dimension is 1: one b element for the whole run

    int64_t bOffset(int64_t outer) const {
        int64_t off = 0;
        for (int64_t d = int64_t(outerShape.size()) - 1; d >= 0; --d) {
            off += (outer % outerShape[d]) * bStride[d];
            outer /= outerShape[d];
        }
        return off;
    }
};

Broadcast planBroadcast(const char* op, const Shape& a, const Shape& b) {
    auto bad = [&] { fail(op, "cannot broadcast " + detail::shapeStr(b) + " to " + detail::shapeStr(a)); };
    if (b.size() > a.size()) bad();
    Shape bp(a.size() - b.size(), 1);
    bp.insert(bp.end(), b.begin(), b.end());
    for (size_t d = 0; d < a.size(); ++d)
        if (bp[d] != a[d] && bp[d] != 1) bad();

    Broadcast p;
    size_t inner = a.size();
    while (inner > 0 && bp[inner - 1] == a[inner - 1]) p.run *= a[--inner];
    if (inner == a.size() && inner > 0) {  // last dimension broadcast
        p.bRunIsScalar = true;
        p.run = a[--inner];
    }
    p.outerShape.assign(a.begin(), a.begin() + inner);
    p.bStride.assign(inner, 0);
    int64_t stride = p.bRunIsScalar ? 1 : p.run;
    for (size_t d = inner; d-- > 0;) {
        if (bp[d] != 1) p.bStride[d] = stride;
        stride *= bp[d];
    }
    return p;
}

// Split over the pool by elements, not runs: the mask's Add over all heads' scores is 32M elements
// at 1,024 tokens, and a residual Add or the feed-forward's product of two same-shaped tensors is a
// single run.
template <class A, class B, class Fn>
void broadcastFloat(const Broadcast& p, const A* a, const B* b, A* out, Fn fn) {
    ThreadPool::global().parallelFor(
        shapeNumel(p.outerShape) * p.run,
        [&](int64_t i0, int64_t i1) {
            for (int64_t o = i0 / p.run; o * p.run < i1; ++o) {
                const int64_t from = std::max(i0, o * p.run) - o * p.run, to = std::min(i1, (o + 1) * p.run) - o * p.run;
                const A* ar = a + o * p.run;
                const B* br = b + p.bOffset(o);
                A* yr = out + o * p.run;
                if (p.bRunIsScalar) {
                    float bv = toF32(br[0]);
                    for (int64_t i = from; i < to; ++i) yr[i] = fromF32<A>(fn(toF32(ar[i]), bv));
                } else {
                    for (int64_t i = from; i < to; ++i) yr[i] = fromF32<A>(fn(toF32(ar[i]), toF32(br[i])));
                }
            }
        },
        detail::kElementsPerTask);
}

// Applies fn(float a, float b) over a with b broadcast, for F32/BF16 operands in any mix.
template <class Fn>
Tensor binaryFloat(const char* op, const Tensor& a, const Tensor& b, Fn fn) {
    detail::requireFloat(op, a, "a");
    detail::requireFloat(op, b, "b");
    Broadcast p = planBroadcast(op, a.shape(), b.shape());
    if (!a.hasData() || !b.hasData()) return Tensor::shapeOnly(a.shape(), a.dtype());
    Tensor y = Tensor::uninitialized(a.shape(), a.dtype());
    detail::visitFloat(a.dtype(), [&](auto aTag) {
        using A = decltype(aTag);
        detail::visitFloat(b.dtype(), [&](auto bTag) {
            using B = decltype(bTag);
            broadcastFloat(p, a.data<A>(), b.data<B>(), y.mutableData<A>(), fn);
        });
    });
    return y;
}

// (a+bi)(c+di) = (ac - bd) + (ad + bc)i with every product rounded to F32 before the sum, as
// PyTorch's vectorised complex kernel does (mul, then hsub): contracting into FMAs would change
// the last bit, so contraction is switched off here. GCC 12's vectoriser fuses the products
// into vfmaddsub all the same, so the loop below stays scalar.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off", "no-tree-vectorize")
#endif
Complex64 complexMultiply(Complex64 x, Complex64 y) {
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
    float ac = x.real() * y.real(), bd = x.imag() * y.imag();
    float ad = x.real() * y.imag(), bc = x.imag() * y.real();
    return {ac - bd, ad + bc};
}

Tensor multiplyComplex(const Tensor& a, const Tensor& b) {
    constexpr const char* op = "MultiplyElementwise";
    if (b.dtype() != DType::Complex64)
        fail(op, "a " + a.shapeStr() + " is Complex64 but b " + b.shapeStr() + " is " + dtypeName(b.dtype()));
    Broadcast p = planBroadcast(op, a.shape(), b.shape());
    if (!a.hasData() || !b.hasData()) return Tensor::shapeOnly(a.shape(), a.dtype());
    Tensor y = Tensor::uninitialized(a.shape(), DType::Complex64);
    const Complex64* ad = a.data<Complex64>();
    const Complex64* bd = b.data<Complex64>();
    Complex64* yd = y.mutableData<Complex64>();
    ThreadPool::global().parallelFor(
        shapeNumel(p.outerShape),
        [&](int64_t o0, int64_t o1) {
            for (int64_t o = o0; o < o1; ++o) {
                const Complex64* br = bd + p.bOffset(o);
                for (int64_t i = 0; i < p.run; ++i)
                    yd[o * p.run + i] = complexMultiply(ad[o * p.run + i], br[p.bRunIsScalar ? 0 : i]);
            }
        },
        std::max<int64_t>(1, detail::kNormElementsPerTask / std::max<int64_t>(1, p.run)));
    return y;
}
// The loop shares complexMultiply's options: GCC does not inline across different ones, and
// a call per element made RoPE 3% of BF16 prefill.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

template <class Fn>
Tensor unaryFloat(const char* op, const Tensor& a, Fn fn) {
    detail::requireFloat(op, a, "a");
    if (!a.hasData()) return Tensor::shapeOnly(a.shape(), a.dtype());
    Tensor y = Tensor::uninitialized(a.shape(), a.dtype());
    detail::visitFloat(a.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T* x = a.data<T>();
        T* out = y.mutableData<T>();
        // Silu's exp costs a few ns per element: the feed-forward's [seqLen, 5632] is worth splitting.
        ThreadPool::global().parallelFor(
            a.numel(),
            [&](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) out[i] = fromF32<T>(fn(toF32(x[i])));
            },
            2048);
    });
    return y;
}

}  // namespace

Tensor Add(const Tensor& a, const Tensor& b) {
    const OpScope profile(OpKind::Add);
    return binaryFloat("Add", a, b, [](float x, float y) { return x + y; });
}

Tensor MultiplyElementwise(const Tensor& a, const Tensor& b) {
    const OpScope profile(OpKind::MultiplyElementwise);
    if (a.dtype() == DType::Complex64) return multiplyComplex(a, b);
    return binaryFloat("MultiplyElementwise", a, b, [](float x, float y) { return x * y; });
}

Tensor DivToScalar(const Tensor& a, float scalar) {
    const OpScope profile(OpKind::DivToScalar);
    return unaryFloat("DivToScalar", a, [scalar](float x) { return x / scalar; });
}

// PyTorch computes silu as x / (1 + exp(-x)) in F32 (then rounds BF16 once), with its
// vectorised exp; same here (exp_approx.h).
Tensor Silu(const Tensor& x) {
    const OpScope profile(OpKind::Silu);
    return unaryFloat("Silu", x, [](float v) { return v / (1.0f + detail::expApprox(-v)); });
}

}  // namespace llama::ml
