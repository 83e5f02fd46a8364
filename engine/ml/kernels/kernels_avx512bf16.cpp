// Prefill with BF16 weights and BF16 x on CPUs with AVX512_BF16 (Zen 4, Sapphire Rapids):
// vdpbf16ps multiplies 32 pairs of bf16 values and adds them into 16 F32 sums in one
// instruction, twice the work of an F32 FMA and without widening the weights first.
// Compiled with -mavx512bf16 on its own (see CMakeLists.txt) so no other code can pick up the
// instruction; the kernel_set.h rules for these files apply (internal linkage, intrinsics only).
#include <immintrin.h>

#include <cstdint>

// GCC 12's avx512fintrin.h trips -Wmaybe-uninitialized (GCC bug 105593; x86_kernels.inl).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace llama::ml::kernels {

namespace {

// The 16 sums of 16 vectors at once: a[i]'s elements added up land in element i. Halving
// the vectors at each level (pairs of elements, then of 64-bit pairs, then of 128-bit lanes
// twice) takes 45 instructions where summing each vector on its own took about 150, a tenth
// of a 4 x 4 tile's work at k = 2048.
inline __m512 sum16(const __m512 a[16]) {
    __m512 t[8], u[4], v[2];
    for (int i = 0; i < 8; ++i)
        t[i] = _mm512_add_ps(_mm512_unpacklo_ps(a[2 * i], a[2 * i + 1]), _mm512_unpackhi_ps(a[2 * i], a[2 * i + 1]));
    for (int i = 0; i < 4; ++i) {
        const __m512d x = _mm512_castps_pd(t[2 * i]), y = _mm512_castps_pd(t[2 * i + 1]);
        u[i] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)), _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
    }
    for (int i = 0; i < 2; ++i)
        v[i] = _mm512_add_ps(_mm512_shuffle_f32x4(u[2 * i], u[2 * i + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                             _mm512_shuffle_f32x4(u[2 * i], u[2 * i + 1], _MM_SHUFFLE(3, 1, 3, 1)));
    return _mm512_add_ps(_mm512_shuffle_f32x4(v[0], v[1], _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_f32x4(v[0], v[1], _MM_SHUFFLE(3, 1, 3, 1)));
}

constexpr int kRX = 4, kRW = 4;  // 16 accumulators + 8 loaded vectors fit the 32 registers

// out[r * ldo + c] for a kRX x kRW tile; rows past the last valid one repeat it (their results
// are discarded), so every tile runs the same code. Each step also asks for one cache line
// from `prefetch` on (nullptr: none), into L2.
void tile(const uint16_t* const xr[kRX], const uint16_t* const wr[kRW], int64_t k, float* out, int64_t ldo, int nx, int nw,
          const char* prefetch) {
    static_assert(kRX * kRW == 16);
    __m512 acc[kRX][kRW];
    for (int r = 0; r < kRX; ++r)
        for (int c = 0; c < kRW; ++c) acc[r][c] = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= k; i += 32) {
        if (prefetch) _mm_prefetch(prefetch + i * 2, _MM_HINT_T1);
        __m512i wv[kRW];
        for (int c = 0; c < kRW; ++c) wv[c] = _mm512_loadu_si512(wr[c] + i);
        for (int r = 0; r < kRX; ++r) {
            const __m512bh xv = (__m512bh)_mm512_loadu_si512(xr[r] + i);
            for (int c = 0; c < kRW; ++c) acc[r][c] = _mm512_dpbf16_ps(acc[r][c], xv, (__m512bh)wv[c]);
        }
    }
    if (i < k) {  // the k % 32 tail, with masked loads (zeros contribute nothing)
        const __mmask32 mask = __mmask32((1u << (k - i)) - 1);
        __m512i wv[kRW];
        for (int c = 0; c < kRW; ++c) wv[c] = _mm512_maskz_loadu_epi16(mask, wr[c] + i);
        for (int r = 0; r < kRX; ++r) {
            const __m512bh xv = (__m512bh)_mm512_maskz_loadu_epi16(mask, xr[r] + i);
            for (int c = 0; c < kRW; ++c) acc[r][c] = _mm512_dpbf16_ps(acc[r][c], xv, (__m512bh)wv[c]);
        }
    }
    alignas(64) float sums[16];
    _mm512_store_ps(sums, sum16(&acc[0][0]));
    for (int r = 0; r < nx; ++r)
        for (int c = 0; c < nw; ++c) out[r * ldo + c] = sums[r * kRW + c];
}

}  // namespace

// out[s * ldo + o] = sum_i x[s * k + i] * w[o * k + i] for s < rows, o < nw (kernel_set.h).
// While the x tiles pass over kRW weight rows (in L1 once the first tile has pulled them from
// memory), the next kRW rows are fetched into L2, a row's worth per tile: with 32 x rows the
// first tile's wait for memory had been a fifth of the time.
void bf16RowsAvx512Bf16(const uint16_t* x, int64_t rows, const uint16_t* w, int64_t nw, int64_t k, float* out, int64_t ldo) {
    for (int64_t o = 0; o < nw; o += kRW) {
        const int nwt = int(nw - o < kRW ? nw - o : kRW);
        const uint16_t* wr[kRW];
        for (int c = 0; c < kRW; ++c) wr[c] = w + (o + (c < nwt ? c : nwt - 1)) * k;
        for (int64_t s = 0; s < rows; s += kRX) {
            const int nxt = int(rows - s < kRX ? rows - s : kRX);
            const uint16_t* xr[kRX];
            for (int r = 0; r < kRX; ++r) xr[r] = x + (s + (r < nxt ? r : nxt - 1)) * k;
            const int64_t t = s / kRX;  // the next rows' row t, if there is one (rows past nw: the caller's next block)
            const char* next = t < kRW ? reinterpret_cast<const char*>(w + (o + kRW + t) * k) : nullptr;
            tile(xr, wr, k, out + s * ldo + o, ldo, nxt, nwt, next);
        }
    }
}

}  // namespace llama::ml::kernels
