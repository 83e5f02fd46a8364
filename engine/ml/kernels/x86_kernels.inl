// The x86 SIMD kernels, written once and compiled twice: by kernels_avx2.cpp for AVX2 + FMA +
// F16C and by kernels_avx512.cpp for AVX-512 with VNNI. The two differ where AVX-512 has a
// better instruction: 16-wide BF16 widening, and VNNI's dpbusd, which does maddubs + madd
// (u8 x s8 products summed four at a time into int32) in one step, without int16 saturation.
//
// Everything here has internal linkage and uses only intrinsics and plain C++: these files are
// compiled with other -march flags than the rest of the program, and an inline function or
// template they shared with it (say std::min) could be emitted here with AVX-512 instructions
// and chosen by the linker for code that runs on a CPU without them.
//
// A weight block is loaded and unpacked once, then dotted with the same block of each of the
// nx x rows (NX, a template parameter so the accumulators stay in registers).
#include <immintrin.h>

#include <cstdlib>
#include <cstring>
#include <new>

// GCC 12's avx512fintrin.h initialises its "undefined" vectors from themselves, which
// -Wmaybe-uninitialized reports wherever _mm512_cvtepi32_ps is inlined (GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "ml/kernels/canonical_sum.inl"
#include "ml/kernels/kernel_set.h"
#include "ml/kernels/block_terms.inl"

namespace llama::ml::kernels {

namespace {

inline float halfAt(const uint8_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return _cvtsh_ss(h);
}

inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

inline __m256i load32(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline __m256i inLane0(int32_t v) { return _mm256_setr_epi32(v, 0, 0, 0, 0, 0, 0, 0); }  // one vmovd

// acc plus sums of u8 x s8 products, four adjacent ones per int32 lane (8 lanes).
inline __m256i addU8S8(__m256i acc, __m256i u, __m256i s) {
#ifdef __AVX512VNNI__
    return _mm256_dpbusd_epi32(acc, u, s);
#else
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
#endif
}

// acc plus the same, each pair-sum multiplied by the int16 scale in its lane (K-quant sub-block
// scales): maddubs' int16 pair sums (at most 63 * 127 * 2, no saturation for 4- and 6-bit
// weights) times the scales, summed in pairs into int32. VNNI's vpdpwssd multiplies and adds in
// one instruction, a third fewer in the K-quant inner loops (a batch of 8 sequences spends most of
// its time there).
inline __m256i addU8S8Scaled(__m256i acc, __m256i u, __m256i s, __m256i scale16) {
#ifdef __AVX512VNNI__
    return _mm256_dpwssd_epi32(acc, _mm256_maddubs_epi16(u, s), scale16);
#else
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), scale16));
#endif
}

// ---- BF16 ----------------------------------------------------------------------------------
// The canonical dot (ml/dot_kernels.h: 16 partials, element i into partial i % 16, a fixed tree)
// in two register layouts. Contiguous: 16 values widened in order (the partials as two 8-lane
// vectors, or one 16-lane). Even/odd: 16 bf16 loaded as eight 32-bit words give their even- and
// odd-numbered values by in-lane shifts alone (a bf16 is the top half of an f32), E holding
// partials 0, 2, ..., 14 and O partials 1, 3, ..., 15; the tree then halves E and O each (hsum)
// and adds the two, which is the canonical tree's order. F32 x's products are rounded before
// they are added; BF16 x's products are exact in F32, so there a fused multiply-add gives the
// same bits and is used.

// 8 bf16 widened in order.
inline __m256 loadBF16x8(const uint16_t* p) {
    const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
}
inline __m256 mulAdd(__m256 acc, __m256 a, __m256 b) { return _mm256_add_ps(acc, _mm256_mul_ps(a, b)); }
inline __m256 evenBF16(__m256i v) { return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)); }
inline __m256 oddBF16(__m256i v) { return _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32(int(0xffff0000u)))); }

// Partials stored in canonical order from the two layouts.
inline void storeInOrder(__m256 lo, __m256 hi, float (&p)[kPartials]) {
    _mm256_storeu_ps(p, lo);
    _mm256_storeu_ps(p + 8, hi);
}
inline void storeEvenOdd(__m256 even, __m256 odd, float (&p)[kPartials]) {
    storeInOrder(_mm256_unpacklo_ps(even, odd), _mm256_unpackhi_ps(even, odd), p);
    // unpack works within 128-bit lanes: [0 1 2 3 8 9 10 11] and [4 5 6 7 12 13 14 15]; swap the middle halves.
    const __m128 a = _mm_loadu_ps(p + 4), b = _mm_loadu_ps(p + 8);
    _mm_storeu_ps(p + 4, b);
    _mm_storeu_ps(p + 8, a);
}

// The canonical tree in registers where there is no tail (storing the partials and adding them
// from memory stalled on store forwarding: most of a 256-wide row's time). Partials 0-7 and
// 8-15: their sum lane by lane is the tree's first step, hsum the other three.
inline float sumInOrder(__m256 lo, __m256 hi) { return hsum(_mm256_add_ps(lo, hi)); }
// Even/odd: halving each is the tree's first three steps, their sum its last.
inline float sumEvenOdd(__m256 even, __m256 odd) { return hsum(even) + hsum(odd); }

#ifndef __AVX512F__
#include "ml/kernels/avx2_tree.inl"
#endif

// F32 x (nx rows) against a BF16 weight row, contiguous layout.
template <int NX>
void dotBF16N(const float* x, int64_t ldx, const uint16_t* w, int64_t k, float* out) {
    __m256 lo[NX], hi[NX];
    for (int s = 0; s < NX; ++s) lo[s] = hi[s] = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + kPartials <= k; i += kPartials) {
        const __m256 w0 = loadBF16x8(w + i), w1 = loadBF16x8(w + i + 8);
        for (int s = 0; s < NX; ++s) {
            lo[s] = mulAdd(lo[s], _mm256_loadu_ps(x + s * ldx + i), w0);
            hi[s] = mulAdd(hi[s], _mm256_loadu_ps(x + s * ldx + i + 8), w1);
        }
    }
    for (int s = 0; s < NX; ++s) {
        if (i == k) {
            out[s] = sumInOrder(lo[s], hi[s]);
            continue;
        }
        float p[kPartials];
        storeInOrder(lo[s], hi[s], p);
        out[s] = finishDot(p, x + s * ldx + i, w + i, k - i);
    }
}

// BF16 x . BF16 w (decode), even/odd layout.
float dotBF16Pair(const uint16_t* x, const uint16_t* w, int64_t k) {
    __m256 even = _mm256_setzero_ps(), odd = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + kPartials <= k; i += kPartials) {
        const __m256i xr = load32(x + i), wr = load32(w + i);
        even = _mm256_fmadd_ps(evenBF16(xr), evenBF16(wr), even);
        odd = _mm256_fmadd_ps(oddBF16(xr), oddBF16(wr), odd);
    }
    if (i == k) return sumEvenOdd(even, odd);
    float p[kPartials];
    storeEvenOdd(even, odd, p);
    return finishDot(p, x + i, w + i, k - i);
}

// ---- BF16 prefill (KernelSet::bf16Rows) ---------------------------------------------------
// The weights stay BF16 in cache and are widened in registers as they are loaded (as
// llama.cpp's tinyBLAS does); x is widened to F32 once per LinearTransformation call
// (KernelSet::prepareRows), in the layout the weights' widening gives, so the tile widens only
// the weights (widening x in the tile too: 53-57 against 61-62 tok/s at 32 tokens, AVX2 build).
// Widening a block of weights into F32 scratch first (the portable path's way) doubled the bytes
// every tile pulls from L2, and L2's bandwidth, not the FMAs, then set the pace. Each (x row,
// weight row) pair keeps its 16 partials in registers: one 16-lane vector on AVX-512, even and
// odd 8-lane vectors on AVX2.

#ifdef __AVX512F__
constexpr int kWideRX = 6, kWideRW = 4;  // 24 accumulators, 4 weight vectors and x: 29 of 32 registers
// A chunk's last one to four x rows (a batch's decode step at B = 4) take a tile 4 high and 6
// wide (24 accumulators, 6 weight vectors and x: 31 of 32): in the 6-high tile a third of the
// multiply-adds went to repeated rows.
constexpr int kFewRX = 4, kFewRW = 6;
inline __m512 widen16(const uint16_t* p) { return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(load32(p)), 16)); }
// An x row in order.
void widenX(const uint16_t* x, int64_t k, float* out) {
    int64_t i = 0;
    for (; i + kPartials <= k; i += kPartials) _mm512_storeu_ps(out + i, widen16(x + i));
    for (; i < k; ++i) out[i] = bf16ToF32(x[i]);
}
constexpr int64_t kWideChunkRows = 30;  // x rows per pass over a block of weights (120 KiB at k = 2048, in L2); a multiple of both tiles' heights

// out[r * ldo + c] for an RX x RW tile; rows past the last valid one repeat it (their results
// are discarded), so every tile runs the same code. Each step also asks for the cache line at the
// same offset as the weights it loads of each of `fetch` rows of `rowBytes` from `prefetch` on,
// into L2. Not inlined: inside its caller's loops GCC 12 kept two of the sums on the stack.
template <int RX, int RW>
__attribute__((noinline)) void widenedTile(const float* const xr[RX], const uint16_t* const wr[RW], int64_t k, float* out,
                                           int64_t ldo, int nx, int nw, const char* prefetch, int fetch, int64_t rowBytes) {
    float p[kPartials];
    int64_t i = 0;
    __m512 acc[RX][RW];
    for (int r = 0; r < RX; ++r)
        for (int c = 0; c < RW; ++c) acc[r][c] = _mm512_setzero_ps();
    for (; i + kPartials <= k; i += kPartials) {
        for (int f = 0; f < fetch; ++f) _mm_prefetch(prefetch + f * rowBytes + i * 2, _MM_HINT_T1);
        __m512 wv[RW];
        for (int c = 0; c < RW; ++c) wv[c] = widen16(wr[c] + i);
        for (int r = 0; r < RX; ++r) {
            const __m512 xv = _mm512_loadu_ps(xr[r] + i);
            for (int c = 0; c < RW; ++c) acc[r][c] = _mm512_fmadd_ps(xv, wv[c], acc[r][c]);
        }
    }
    for (int r = 0; r < nx; ++r)
        for (int c = 0; c < nw; ++c) {
            if (i == k) {
                out[r * ldo + c] = sumInOrder(_mm512_castps512_ps256(acc[r][c]), _mm512_extractf32x8_ps(acc[r][c], 1));
                continue;
            }
            _mm512_storeu_ps(p, acc[r][c]);
            out[r * ldo + c] = finishDot(p, xr[r] + i, wr[c] + i, k - i);
        }
}

// x rows s0 to s1 (widened by widenX, k floats each) against nw BF16 weight rows in RX x RW
// tiles, a group of RW weight rows (in L1) at a time.
template <int RX, int RW>
void widenedPass(const float* xf, int64_t s0, int64_t s1, const uint16_t* w, int64_t nw, int64_t k, float* out, int64_t ldo) {
    const int tiles = int((s1 - s0 + RX - 1) / RX), perTile = (RW + tiles - 1) / tiles;
    for (int64_t o = 0; o < nw; o += RW) {
        const int nwt = int(nw - o < RW ? nw - o : RW);
        const uint16_t* wr[RW];
        for (int c = 0; c < RW; ++c) wr[c] = w + (o + (c < nwt ? c : nwt - 1)) * k;
        for (int64_t s = s0; s < s1; s += RX) {
            const int nxt = int(s1 - s < RX ? s1 - s : RX);
            const float* xr[RX];
            for (int r = 0; r < RX; ++r) xr[r] = xf + (s + (r < nxt ? r : nxt - 1)) * k;
            // The next group's weight rows while these are in L1, shared out over the group's
            // tiles (all of them in one tile where a few x rows make one tile: a batch's decode).
            const int64_t first = int64_t((s - s0) / RX) * perTile;
            int64_t fetch = first >= RW ? 0 : perTile < RW - first ? perTile : RW - first;
            if (fetch > nw - (o + RW + first)) fetch = nw - (o + RW + first) > 0 ? nw - (o + RW + first) : 0;
            const char* next = fetch ? reinterpret_cast<const char*>(w + (o + RW + first) * k) : nullptr;
            widenedTile<RX, RW>(xr, wr, k, out + s * ldo + o, ldo, nxt, nwt, next, int(fetch), k * 2);
        }
    }
}

// out[s * ldo + o] for x rows widened by widenX (k floats each) against nw BF16 weight rows,
// kWideChunkRows x rows at a time over a block of weights (the chunk in L2, a weight pair in L1).
// Tile shapes change no sum: each (x row, weight row) pair keeps its own partials.
void widenedRows(const float* xf, int64_t rows, const uint16_t* w, int64_t nw, int64_t k, float* out, int64_t ldo) {
    for (int64_t s0 = 0; s0 < rows; s0 += kWideChunkRows) {
        const int64_t s1 = rows - s0 < kWideChunkRows ? rows : s0 + kWideChunkRows;
        const int64_t few = (s1 - s0) % kWideRX <= kFewRX ? (s1 - s0) % kWideRX : 0;
        if (s1 - few > s0) widenedPass<kWideRX, kWideRW>(xf, s0, s1 - few, w, nw, k, out, ldo);
        if (few) widenedPass<kFewRX, kFewRW>(xf, s1 - few, s1, w, nw, k, out, ldo);
    }
}
#else
// AVX2 (16 registers): a tile of 3 x rows by 2 weight rows, each pair's 16 partials as even and
// odd vectors: 12 accumulators, the two weight vectors of one half, an x vector and the odd
// values' mask. Three x rows (in L1: 3 KiB at k = 256) take every weight row of the block a pair
// at a time, the weights coming from L1 or L2: x in F32 is twice the weights' bytes, and a chunk
// of 30 x rows passing each weight pair in turn (the AVX-512 order above) came from L2 and left
// the tiles at 35-45% of the FMAs' peak on Zen 3.
constexpr int kWideRX = 3, kWideRW = 2;
// An x row with each 16 values as their 8 even then 8 odd ones (the weights' even/odd order).
void widenX(const uint16_t* x, int64_t k, float* out) {
    int64_t i = 0;
    for (; i + kPartials <= k; i += kPartials) {
        const __m256i v = load32(x + i);
        _mm256_storeu_ps(out + i, evenBF16(v));
        _mm256_storeu_ps(out + i + 8, oddBF16(v));
    }
    for (; i < k; ++i) out[i] = bf16ToF32(x[i]);
}

// x's 8 values at p, loaded once for both weight rows: left to itself GCC 12 folds the load
// into each multiply-add, and 16 loads a step (12 of x) then set the pace, not the 12 FMAs.
inline __m256 xInRegister(const float* p) {
    __m256 v = _mm256_loadu_ps(p);
    __asm__("" : "+x"(v));
    return v;
}

// The three x rows xr (rows past nx repeat the last; their sums are discarded) against the nw
// weight rows from w on, a pair at a time: out[r * ldo + c] for r < nx, c < nw. Not inlined, and
// the accumulators named per tile position, so that they stay in registers.
__attribute__((noinline)) void widenedStrip(const float* const xr[kWideRX], const uint16_t* w, int64_t nw, int64_t k, float* out,
                                            int64_t ldo, int nx) {
    const __m256i oddBits = _mm256_set1_epi32(int(0xffff0000u));
    const float *x0 = xr[0], *x1 = xr[1], *x2 = xr[2];
    for (int64_t c0 = 0; c0 < nw; c0 += kWideRW) {
        const int nwt = nw - c0 < kWideRW ? int(nw - c0) : kWideRW;
        const uint16_t *w0 = w + c0 * k, *w1 = w + (c0 + nwt - 1) * k;
        __m256 e00 = _mm256_setzero_ps(), e01 = e00, e10 = e00, e11 = e00, e20 = e00, e21 = e00;
        __m256 o00 = e00, o01 = e00, o10 = e00, o11 = e00, o20 = e00, o21 = e00;
        int64_t i = 0;
        for (; i + kPartials <= k; i += kPartials) {
            const __m256 a = evenBF16(load32(w0 + i)), b = evenBF16(load32(w1 + i));
            __m256 xv = xInRegister(x0 + i);
            e00 = _mm256_fmadd_ps(xv, a, e00), e01 = _mm256_fmadd_ps(xv, b, e01);
            xv = xInRegister(x1 + i);
            e10 = _mm256_fmadd_ps(xv, a, e10), e11 = _mm256_fmadd_ps(xv, b, e11);
            xv = xInRegister(x2 + i);
            e20 = _mm256_fmadd_ps(xv, a, e20), e21 = _mm256_fmadd_ps(xv, b, e21);
            const __m256 c = _mm256_castsi256_ps(_mm256_and_si256(load32(w0 + i), oddBits));
            const __m256 d = _mm256_castsi256_ps(_mm256_and_si256(load32(w1 + i), oddBits));
            xv = xInRegister(x0 + i + 8);
            o00 = _mm256_fmadd_ps(xv, c, o00), o01 = _mm256_fmadd_ps(xv, d, o01);
            xv = xInRegister(x1 + i + 8);
            o10 = _mm256_fmadd_ps(xv, c, o10), o11 = _mm256_fmadd_ps(xv, d, o11);
            xv = xInRegister(x2 + i + 8);
            o20 = _mm256_fmadd_ps(xv, c, o20), o21 = _mm256_fmadd_ps(xv, d, o21);
        }
        float* o = out + c0;
        if (i == k) {  // the six pairs' trees side by side: lane r holds (r, 0), lane 4 + r (r, 1)
            const __m256 z = _mm256_setzero_ps();
            float sums[8];
            _mm256_storeu_ps(sums, _mm256_add_ps(hsum8(e00, e01, e10, e11, e20, e21, z, z), hsum8(o00, o01, o10, o11, o20, o21, z, z)));
            for (int r = 0; r < nx; ++r)
                for (int c = 0; c < nwt; ++c) o[r * ldo + c] = sums[4 * c + r];
            continue;
        }
        const __m256 even[kWideRX][kWideRW] = {{e00, e01}, {e10, e11}, {e20, e21}}, odd[kWideRX][kWideRW] = {{o00, o01}, {o10, o11}, {o20, o21}};
        float p[kPartials];
        for (int r = 0; r < nx; ++r)
            for (int c = 0; c < nwt; ++c) {
                storeEvenOdd(even[r][c], odd[r][c], p);
                o[r * ldo + c] = finishDot(p, xr[r] + i, (c ? w1 : w0) + i, k - i);
            }
    }
}

// out[s * ldo + o] for x rows widened by widenX (k floats each) against nw BF16 weight rows.
void widenedRows(const float* xf, int64_t rows, const uint16_t* w, int64_t nw, int64_t k, float* out, int64_t ldo) {
    for (int64_t s = 0; s < rows; s += kWideRX) {
        const int nx = rows - s < kWideRX ? int(rows - s) : kWideRX;
        const float* xr[kWideRX];
        for (int r = 0; r < kWideRX; ++r) xr[r] = xf + (s + (r < nx ? r : nx - 1)) * k;
        widenedStrip(xr, w, nw, k, out + s * ldo, ldo, nx);
    }
}
#endif

// KernelSet::prepareRows of the widened tiles: each x row as widenX leaves it, k floats in 2k
// words (written and read only as floats, by this file).
// avx512bf16, which also compiles this file, prepares x its own way: unused there.
[[maybe_unused]] int64_t widenedRowLength(int64_t k) { return 2 * k; }
[[maybe_unused]] void widenRows(const uint16_t* x, int64_t rows, int64_t k, uint16_t* out) {
    for (int64_t s = 0; s < rows; ++s) widenX(x + s * k, k, reinterpret_cast<float*>(out) + s * k);
}
// KernelSet::bf16Rows with x as widenRows left it.
[[maybe_unused]] void bf16RowsPrewidened(const uint16_t* x, int64_t rows, const uint16_t* w, int64_t nw, int64_t k, float* out, int64_t ldo) {
    widenedRows(reinterpret_cast<const float*>(x), rows, w, nw, k, out, ldo);
}

// ---- quantized decode (kernel_set.h's contract) --------------------------------------------
// A block's integer sum with one x row is the total of an __m256i's eight int32 lanes, reduced
// four blocks at a time by decodeBlocks (block_terms.inl).

struct DecodeOps {
    using V = __m256i;
    static V zero() { return _mm256_setzero_si256(); }
    static V pair(V a, V b) { return _mm256_hadd_epi32(a, b); }
    // hadd(hadd(a, b), hadd(c, d)) holds lanes 0-3 of a, b, c and d summed in its low half, lanes
    // 4-7 in its high one.
    static void totals(V ab, V cd, int32_t t[4]) {
        const V h = _mm256_hadd_epi32(ab, cd);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(t), _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1)));
    }
};

// ---- 32-weight blocks: Q8_0, Q4_0 ----------------------------------------------------------

void dotQ8_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    decodeBlocks<DecodeOps, 1>(
        nx, blocks, out,
        [&]<int NX>(int64_t b, __m256i (*v)[NX]) {
            const __m256i q = load32(w + 34 * b + 2);
#ifdef __AVX512VNNI__
            // dpbusd wants one unsigned operand: q + 128 (a flipped sign bit), whose products add
            // 128 * sum(qx), so each sum starts from minus that. Exact, and no per-row sign
            // fix-ups (maddubs could not do this: its int16 pair sums would saturate).
            const __m256i u = _mm256_xor_si256(q, _mm256_set1_epi8(char(0x80)));
            for (int s = 0; s < NX; ++s) {
                const BlockQ8x32& xb = x[s * ldx + b];
                v[0][s] = addU8S8(inLane0(-128 * xb.sum), u, load32(xb.q));
            }
#else
            // q * qx = |q| * (qx with q's sign): unsigned x signed, as maddubs needs.
            const __m256i absQ = _mm256_sign_epi8(q, q);  // |q| as u8 (128 for -128)
            for (int s = 0; s < NX; ++s) v[0][s] = addU8S8(_mm256_setzero_si256(), absQ, _mm256_sign_epi8(load32(x[s * ldx + b].q), q));
#endif
        },
        [&](int64_t b, int s, const int32_t* t) { return blockTerm(x[s * ldx + b].d, halfAt(w + 34 * b), t[0]); });
}

// The nibbles go into the products unsigned, without their "- 8": each sum starts from -8 * sum(qx).
void dotQ4_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    const __m128i low4 = _mm_set1_epi8(0x0f);
    decodeBlocks<DecodeOps, 1>(
        nx, blocks, out,
        [&]<int NX>(int64_t b, __m256i (*v)[NX]) {
            const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 18 * b + 2));
            // Weights 0..15 are the low nibbles, 16..31 the high ones: one 32-byte vector in x's order.
            const __m256i q = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(bytes, 4), low4), _mm_and_si128(bytes, low4));
            for (int s = 0; s < NX; ++s) {
                const BlockQ8x32& xb = x[s * ldx + b];
                v[0][s] = addU8S8(inLane0(-8 * xb.sum), q, load32(xb.q));
            }
        },
        [&](int64_t b, int s, const int32_t* t) { return blockTerm(x[s * ldx + b].d, halfAt(w + 18 * b), t[0]); });
}

// ---- 256-weight super-blocks: Q4_K, Q6_K ---------------------------------------------------

// Q4_K's eight 6-bit scales and eight 6-bit mins (layout in quant_blocks.h: 12 bytes, as 32-bit
// words a0 a1 a2), unpacked in one vector: bytes 0-7 the scales, 8-15 the mins. Per byte,
// scales 0-3 are a0 & 63, scales 4-7 (a2 & 15) | ((a0 >> 2) & 48), mins the same from a1 and
// a2 >> 4. Word operations on general registers, then moved into a vector, took a third of the
// decode (the packed bytes are read 16 at a time: the block's quants follow, so it stays inside).
inline __m128i unpackScalesMins(const uint8_t* packed) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(packed));
    const __m128i lo = _mm_and_si128(_mm_shuffle_epi32(a, _MM_SHUFFLE(2, 1, 2, 0)), _mm_set1_epi8(0x3f));  // words 0, 2: a0, a1
    const __m128i hi = _mm_or_si128(                                                                       // words 1, 3
        _mm_and_si128(_mm_srlv_epi32(_mm_shuffle_epi32(a, _MM_SHUFFLE(2, 2, 2, 2)), _mm_setr_epi32(0, 0, 0, 4)), _mm_set1_epi8(0x0f)),
        _mm_and_si128(_mm_srli_epi32(_mm_shuffle_epi32(a, _MM_SHUFFLE(1, 1, 0, 0)), 2), _mm_set1_epi8(0x30)));
    return _mm_blend_epi32(lo, hi, 0b1010);
}

// start plus the eight 32-weight sub-blocks' products with x, each scaled by scale(j)
// (addU8S8Scaled), in four chains of two: integer sums, so the grouping changes no bit, and the
// multiply-adds do not wait for each other (one chain of eight left Q4_K's decode a fifth slower).
template <class Scale>
inline __m256i scaledSubBlocks(__m256i start, const __m256i q[8], const int8_t* xq, Scale&& scale) {
    __m256i chain[4] = {start, _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    for (int j = 0; j < 8; ++j) chain[j % 4] = addU8S8Scaled(chain[j % 4], q[j], load32(xq + 32 * j), scale(j));
    return _mm256_add_epi32(_mm256_add_epi32(chain[0], chain[1]), _mm256_add_epi32(chain[2], chain[3]));
}

// Broadcasts int16 element j of v to every lane (a byte shuffle with a constant mask).
inline __m256i broadcast16(__m256i v, int j) { return _mm256_shuffle_epi8(v, _mm256_set1_epi16(short(0x0100 + 0x0202 * j))); }

// Two sums a block: the scaled products' (v[0]) and the minimums' (v[1]).
void dotQ4_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    decodeBlocks<DecodeOps, 2>(
        nx, blocks, out,
        [&]<int NX>(int64_t b, __m256i (*v)[NX]) {
            const uint8_t* blk = w + 144 * b;
            const __m128i scalesMins = unpackScalesMins(blk + 4);
            // m[j] pairs with x's bsums[2j] and bsums[2j + 1]: each min twice, as int16.
            const __m256i mv = _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(scalesMins, scalesMins));
            const __m256i sc16 = _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(scalesMins));
            // Sub-blocks 2p (low nibbles) and 2p + 1 (high nibbles) share 32 bytes of qs.
            __m256i q[8];
            for (int p = 0; p < 4; ++p) {
                const __m256i bytes = load32(blk + 16 + 32 * p);
                q[2 * p] = _mm256_and_si256(bytes, low4);
                q[2 * p + 1] = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), low4);
            }
            for (int s = 0; s < NX; ++s) {
                const BlockQ8x256& xb = x[s * ldx + b];
                v[0][s] = scaledSubBlocks(_mm256_setzero_si256(), q, xb.q, [&](int j) { return broadcast16(sc16, j); });
                v[1][s] = _mm256_madd_epi16(load32(xb.bsums), mv);
            }
        },
        [&](int64_t b, int s, const int32_t* t) {
            // d and dmin converted together.
            int32_t packed;
            std::memcpy(&packed, w + 144 * b, 4);
            const __m128 scales = _mm_cvtph_ps(_mm_cvtsi32_si128(packed));
            return blockTerm(x[s * ldx + b].d, _mm_cvtss_f32(scales), t[0], _mm_cvtss_f32(_mm_movehdup_ps(scales)), t[1]);
        });
}

void dotQ6_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    const __m256i low4 = _mm256_set1_epi8(0x0f), bits45 = _mm256_set1_epi8(0x30);
    decodeBlocks<DecodeOps, 1>(
        nx, blocks, out,
        [&]<int NX>(int64_t b, __m256i (*v)[NX]) {
            const uint8_t* blk = w + 210 * b;
            const auto* sc = reinterpret_cast<const int8_t*>(blk + 192);
            // The 256 6-bit values in natural order, 32 per vector: low 4 bits from ql, bits 4-5 from qh.
            __m256i q[8], scale[8];
            for (int half = 0; half < 2; ++half) {
                const __m256i ql0 = load32(blk + 64 * half), ql1 = load32(blk + 64 * half + 32);
                const __m256i qh = load32(blk + 128 + 32 * half);
                __m256i* y = q + 4 * half;
                y[0] = _mm256_or_si256(_mm256_and_si256(ql0, low4), _mm256_and_si256(_mm256_slli_epi16(qh, 4), bits45));
                y[1] = _mm256_or_si256(_mm256_and_si256(ql1, low4), _mm256_and_si256(_mm256_slli_epi16(qh, 2), bits45));
                y[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), low4), _mm256_and_si256(qh, bits45));
                y[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), low4),
                                       _mm256_and_si256(_mm256_srli_epi16(qh, 2), bits45));
            }
            // The 16 scales as int16; vector j holds groups 2j (low 128-bit lane) and 2j + 1 (high
            // lane) of 16 values, so scale[j] is scale 2j in its low lane and 2j + 1 in its high lane:
            // one in-lane byte shuffle of the scales' half that holds them (broadcasting each scale
            // from a register took four times the instructions).
            const __m256i scales16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sc)));
            const __m256i half[2] = {_mm256_permute2x128_si256(scales16, scales16, 0x00), _mm256_permute2x128_si256(scales16, scales16, 0x11)};
            for (int j = 0; j < 8; ++j) {
                const char lo = char(4 * (j % 4)), hi = char(4 * (j % 4) + 2);
                const __m256i pick = _mm256_setr_epi8(lo, lo + 1, lo, lo + 1, lo, lo + 1, lo, lo + 1, lo, lo + 1, lo, lo + 1, lo, lo + 1, lo, lo + 1,
                                                      hi, hi + 1, hi, hi + 1, hi, hi + 1, hi, hi + 1, hi, hi + 1, hi, hi + 1, hi, hi + 1, hi, hi + 1);
                scale[j] = _mm256_shuffle_epi8(half[j / 4], pick);
            }
            // The "- 32" of every weight: each sum starts from -32 * sum_g scale[g] * sum(x in group g).
            for (int s = 0; s < NX; ++s) {
                const BlockQ8x256& xb = x[s * ldx + b];
                const __m256i offset = _mm256_slli_epi32(_mm256_madd_epi16(load32(xb.bsums), scales16), 5);
                v[0][s] = scaledSubBlocks(_mm256_sub_epi32(_mm256_setzero_si256(), offset), q, xb.q, [&](int j) { return scale[j]; });
            }
        },
        [&](int64_t b, int s, const int32_t* t) { return blockTerm(x[s * ldx + b].d, halfAt(w + 210 * b + 208), t[0]); });
}

// ---- nx as a run-time argument -------------------------------------------------------------

#define LLAMA_DISPATCH_NX(fn, ...)                 \
    switch (nx) {                                  \
        case 1: return fn<1>(__VA_ARGS__);         \
        case 2: return fn<2>(__VA_ARGS__);         \
        case 3: return fn<3>(__VA_ARGS__);         \
        default: return fn<kMaxRows>(__VA_ARGS__); \
    }

void dotBF16(const float* x, int64_t ldx, int nx, const uint16_t* w, int64_t k, float* out) {
    LLAMA_DISPATCH_NX(dotBF16N, x, ldx, w, k, out)
}
#undef LLAMA_DISPATCH_NX

}  // namespace
}  // namespace llama::ml::kernels

#include "ml/kernels/int16_panels.inl"

namespace llama::ml::kernels {

namespace {

// ---- quantized prefill: int16 panels (kernel_set.h) ----------------------------------------
// One vector holds the same two values of kLanes x rows; a weight pair broadcast to every
// int32 lane multiplies all of them with one pmaddwd (two int16 products summed into int32,
// exact: |w| <= 4096, |x| <= 127), or with VNNI's vpdpwssd, which also adds them up. A
// block's sums are scaled to F32 once for all lanes.

#ifdef __AVX512F__
// 32 registers: 8 rows' int32 and F32 accumulators; with 16 (AVX2), 4 rows (8 spill, measured).
constexpr int kLanes = 16, kPanelRows = 8;
using VecI = __m512i;
using VecF = __m512;
inline VecI loadI(const int16_t* p) { return _mm512_loadu_si512(p); }
inline VecI broadcastPair(const int16_t* p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}
inline VecI addPairProducts(VecI acc, VecI w, VecI x) {
#ifdef __AVX512VNNI__
    // In place by inline assembly: GCC 12 compiles the intrinsic as if it were not in place and
    // then copies every accumulator twice per step (two register moves per vpdpwssd, and x
    // spilled to the stack: 45% of the panel's time in Q8_0 prefill).
    asm("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(w), "v"(x));
    return acc;
#else
    return _mm512_add_epi32(acc, _mm512_madd_epi16(w, x));
#endif
}
inline VecI zeroI() { return _mm512_setzero_si512(); }
inline VecF zeroF() { return _mm512_setzero_ps(); }
inline VecF toF(VecI v) { return _mm512_cvtepi32_ps(v); }
inline VecF loadF(const float* p) { return _mm512_loadu_ps(p); }
inline VecF splatF(float s) { return _mm512_set1_ps(s); }
inline VecF addF(VecF a, VecF b) { return _mm512_add_ps(a, b); }
inline VecF subF(VecF a, VecF b) { return _mm512_sub_ps(a, b); }
inline VecF mulF(VecF a, VecF b) { return _mm512_mul_ps(a, b); }
inline void storeF(float* p, VecF v) { _mm512_storeu_ps(p, v); }
#else
constexpr int kLanes = 8, kPanelRows = 4;
using VecI = __m256i;
using VecF = __m256;
inline VecI loadI(const int16_t* p) { return load32(p); }
inline VecI broadcastPair(const int16_t* p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}
inline VecI addPairProducts(VecI acc, VecI w, VecI x) { return _mm256_add_epi32(acc, _mm256_madd_epi16(w, x)); }
inline VecI zeroI() { return _mm256_setzero_si256(); }
inline VecF zeroF() { return _mm256_setzero_ps(); }
inline VecF toF(VecI v) { return _mm256_cvtepi32_ps(v); }
inline VecF loadF(const float* p) { return _mm256_loadu_ps(p); }
inline VecF splatF(float s) { return _mm256_set1_ps(s); }
inline VecF addF(VecF a, VecF b) { return _mm256_add_ps(a, b); }
inline VecF subF(VecF a, VecF b) { return _mm256_sub_ps(a, b); }
inline VecF mulF(VecF a, VecF b) { return _mm256_mul_ps(a, b); }
inline void storeF(float* p, VecF v) { _mm256_storeu_ps(p, v); }
#endif

}  // namespace
}  // namespace llama::ml::kernels

#include "ml/kernels/int16_panel_multiply.inl"

namespace llama::ml::kernels {

namespace {

#ifdef __AVX512VNNI__
// ---- Q8_0 / Q4_0 prefill: byte panels (kernel_set.h, ByteRows) ------------------------------

// The sum of a block's 32 signed bytes: sad against zero sums 8 unsigned bytes at a time, so
// the bytes are first shifted to unsigned (+128 each, taken off at the end).
inline int32_t sumBytes(__m256i q) {
    const __m256i s = _mm256_sad_epu8(_mm256_xor_si256(q, _mm256_set1_epi8(char(0x80))), _mm256_setzero_si256());
    const __m128i t = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    return int32_t(_mm_cvtsi128_si32(_mm_add_epi64(t, _mm_unpackhi_epi64(t, t)))) - 32 * 128;
}

void unpackByteRows(BlockFormat f, const uint8_t* w, size_t rowBytes, int64_t rows, int64_t k, const ByteRows& out) {
    const int64_t blocks = k / 32;
    const size_t blockBytes = f == BlockFormat::Q8_0 ? 34 : 18;
    // Locals, not out's members: stores through int8_t* may alias them, and the compiler would
    // reload every pointer after every store.
    int8_t* q = out.q;
    float* d = out.d;
    int32_t* offset = out.offset;
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t b = 0; b < blocks; ++b, q += 32) {
            const uint8_t* blk = w + size_t(r) * rowBytes + size_t(b) * blockBytes;
            __m256i v;
            if (f == BlockFormat::Q8_0) {
                v = load32(blk + 2);
            } else {  // Q4_0: weight i in byte i's low nibble, i + 16 in its high one, minus 8
                const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 2)), low = _mm_set1_epi8(0x0f);
                v = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(packed, 4), low), _mm_and_si128(packed, low));
                v = _mm256_sub_epi8(v, _mm256_set1_epi8(8));
            }
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(q), v);
            d[r * blocks + b] = halfAt(blk);
            offset[r * blocks + b] = -128 * sumBytes(v);
        }
}

// NR weight rows against one group of 16 x rows. Each step is one x load and, per weight row,
// one vpdpbusd whose weight operand is broadcast from memory ({1to16}): 64 multiply-adds.
template <int NR>
void bytePanelN(const ByteRows& w, int64_t r0, int64_t k, const PackedXBytes& x, float* out) {
    const int64_t blocks = k / 32;
    VecF acc[NR];
    for (int r = 0; r < NR; ++r) acc[r] = zeroF();
    for (int64_t b = 0; b < blocks; ++b) {
        VecI sum[NR];
        for (int r = 0; r < NR; ++r) sum[r] = _mm512_set1_epi32(w.offset[(r0 + r) * blocks + b]);
        const uint8_t* xq = x.q + b * 32 * kLanes;  // 8 groups of 4 values of 16 rows
        const int8_t* wq = w.q + r0 * k + b * 32;
        for (int i = 0; i < 32; i += 4) {
            const __m512i xv = _mm512_loadu_si512(xq + i * kLanes);
            // Inline assembly for the in-place update and the broadcast operand (see addPairProducts).
            for (int r = 0; r < NR; ++r)
                asm("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(sum[r]) : "v"(xv), "m"(*reinterpret_cast<const int32_t*>(wq + r * k + i)));
        }
        const VecF dx = loadF(x.d + b * kLanes);
        for (int r = 0; r < NR; ++r) acc[r] = addF(acc[r], blockTerms(dx, w.d[(r0 + r) * blocks + b], sum[r]));
    }
    for (int r = 0; r < NR; ++r) storeF(out + r * kLanes, acc[r]);
}

void bytePanel(const ByteRows& w, int64_t r0, int nr, int64_t k, const PackedXBytes& x, float* out) {
    switch (nr) {
        case 1: return bytePanelN<1>(w, r0, k, x, out);
        case 2: return bytePanelN<2>(w, r0, k, x, out);
        case 3: return bytePanelN<3>(w, r0, k, x, out);
        case 4: return bytePanelN<4>(w, r0, k, x, out);
        case 5: return bytePanelN<5>(w, r0, k, x, out);
        case 6: return bytePanelN<6>(w, r0, k, x, out);
        case 7: return bytePanelN<7>(w, r0, k, x, out);
        default: return bytePanelN<kPanelRows>(w, r0, k, x, out);
    }
}
#endif

}  // namespace
}  // namespace llama::ml::kernels
