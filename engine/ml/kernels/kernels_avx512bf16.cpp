// The AVX-512 path on CPUs that also have AVX512_BF16 (Zen 4, Sapphire Rapids): the avx512 path's
// kernels, with BF16 prefill on vdpbf16ps wherever that instruction's bits are provably the
// canonical ones (compiled with -march=x86-64-v4 -mavx512vnni -mavx512bf16, see CMakeLists.txt).
//
// vdpbf16ps multiplies 32 BF16 pairs into 16 F32 lanes: lane l adds the product of elements 2l + 1,
// then that of elements 2l, each as one fused multiply-add (Intel's definition; on the project's
// Zen 4, 32 million random lanes matched it bit for bit), reading subnormal inputs as zero and
// flushing subnormal results. Against the canonical dot (dot_kernels.h: element i in partial
// i % 16, increasing i, exact BF16 x BF16 products fused):
// - Order: partial l takes elements l, then l + 16, of every 32. Both operands are permuted within
//   each 32 (element l to position 2l + 1, element l + 16 to position 2l), so lane l is partial l.
// - Subnormals: every BF16 value is a multiple of 2^(e - 7), e its exponent. If the nonzero weights'
//   smallest exponent and the nonzero x values' add up to at least -112, every product, and so
//   every partial sum however rounded, is zero or a multiple of 2^-126, never subnormal: there is
//   nothing to flush. Infinities, NaNs, subnormal inputs and sums that could overflow are kept
//   out by the same check. A weight block or x row that fails it (none in any model the suite
//   runs) is multiplied by the avx512 path's widened tiles, the canonical arithmetic by definition.
// docs/speed.md ("vdpbf16ps, where it gives the canonical bits") has the argument in full.
#include "ml/kernels/x86_kernels.inl"

namespace llama::ml::kernels {

namespace {

// Biased exponents (1..254 for normal values) of a run of BF16 values: the smallest and largest
// among the nonzero ones, and whether any is subnormal, infinite or NaN.
struct ExponentRange {
    int lo = 255, hi = 0;
    bool special = false;
};

// Whether vdpbf16ps gives the canonical bits for these weights against this x row: the smallest
// exponents add up to at least -112 (biased: 142), and the largest to at most 102 (biased: 356),
// so that no sum of up to 2^24 products can reach 2^128 and overflow.
bool pairedIsExact(const ExponentRange& w, const ExponentRange& x) {
    return !w.special && !x.special && w.lo + x.lo >= 142 && w.hi + x.hi <= 356;
}

// Element l of every 32 to position 2l + 1, element l + 16 to position 2l (vpermw's indices: the
// source element of each position).
inline __m512i pairUp(__m512i v) {
    const __m512i order = _mm512_set_epi16(15, 31, 14, 30, 13, 29, 12, 28, 11, 27, 10, 26, 9, 25, 8, 24,  //
                                           7, 23, 6, 22, 5, 21, 4, 20, 3, 19, 2, 18, 1, 17, 0, 16);
    return _mm512_permutexvar_epi16(order, v);
}

// n rows of k values permuted in 32s into out (`length` values apart, zeros past k up to a whole
// 32: zero products add nothing), and the exponent range of all of them, read off the smallest
// nonzero and the largest magnitude (a BF16's magnitude orders as its value does): the smallest
// is subnormal if any is, the largest infinite or NaN if any is.
ExponentRange pairUpRows(const uint16_t* rows, int64_t n, int64_t k, uint16_t* out, int64_t length) {
    const __m512i magnitude = _mm512_set1_epi16(0x7fff);
    __m512i smallest = _mm512_set1_epi16(-1), largest = _mm512_setzero_si512();
    for (int64_t s = 0; s < n; ++s)
        for (int64_t i = 0; i < k; i += 32) {
            const __mmask32 in = k - i >= 32 ? ~__mmask32(0) : __mmask32((1u << (k - i)) - 1);
            const __m512i v = _mm512_maskz_loadu_epi16(in, rows + s * k + i);
            const __m512i m = _mm512_and_si512(v, magnitude);
            smallest = _mm512_mask_min_epu16(smallest, _mm512_test_epi16_mask(m, m), smallest, m);
            largest = _mm512_max_epu16(largest, m);
            _mm512_storeu_si512(out + s * length + i, pairUp(v));
        }
    alignas(64) uint16_t small[32], large[32];
    _mm512_store_si512(small, smallest);
    _mm512_store_si512(large, largest);
    uint16_t lo = 0xffff, hi = 0;
    for (int j = 0; j < 32; ++j) {
        lo = small[j] < lo ? small[j] : lo;
        hi = large[j] > hi ? large[j] : hi;
    }
    ExponentRange r;  // all zero: lo 255 and hi 0, as a range of no exponents
    if (lo != 0xffff) r.lo = lo >> 7, r.hi = hi >> 7;
    r.special = r.lo == 0 || r.hi == 255;
    return r;
}

int64_t padded(int64_t k) { return (k + 31) / 32 * 32; }

// A paired x row (pairRows): its exponent range in its first 32 values (lo, hi, special), then its
// values as pairUpRows leaves them, then as stored (for the widened tiles).
constexpr int64_t kHeader = 32;  // keeps the values 64-byte aligned relative to the row
int64_t pairedRowLength(int64_t k) { return kHeader + 2 * padded(k); }

void pairRows(const uint16_t* x, int64_t rows, int64_t k, uint16_t* out) {
    const int64_t length = pairedRowLength(k);
    for (int64_t s = 0; s < rows; ++s) {
        uint16_t* paired = out + s * length;
        const ExponentRange r = pairUpRows(x + s * k, 1, k, paired + kHeader, length);
        paired[0] = uint16_t(r.lo), paired[1] = uint16_t(r.hi), paired[2] = r.special;
        std::memcpy(paired + kHeader + padded(k), x + s * k, size_t(k) * sizeof(uint16_t));
    }
}

ExponentRange rangeOf(const uint16_t* paired) { return {paired[0], paired[1], paired[2] != 0}; }

// The canonical tree (p[j] += p[j + w] for w = 8, 4, 2, 1) of 16 vectors of partials at once: a[i]'s
// sum lands in element 4 * (i % 4) + i / 4 (transposed, as the steps leave it). Each step pairs two
// vectors' halves, then quarters, then 64-bit and 32-bit pairs within quarters: 45 instructions
// where one vector at a time took about 130, which at k = 256 (the bundled model) is a third of a
// tile's work.
inline __m512 treeOf16(const __m512 a[16]) {
    __m512 t[8], u[4], v[2];
    // w = 8: quarters 0-1 plus quarters 2-3; t[i] holds a[2i]'s 8 sums, then a[2i + 1]'s.
    for (int i = 0; i < 8; ++i)
        t[i] = _mm512_add_ps(_mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    // w = 4: u[i] holds 4 sums each of a[4i], a[4i + 1], a[4i + 2] and a[4i + 3].
    for (int i = 0; i < 4; ++i)
        u[i] = _mm512_add_ps(_mm512_shuffle_f32x4(t[2 * i], t[2 * i + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                             _mm512_shuffle_f32x4(t[2 * i], t[2 * i + 1], _MM_SHUFFLE(3, 1, 3, 1)));
    // w = 2: within each quarter, two sums of u[2i]'s, then two of u[2i + 1]'s.
    for (int i = 0; i < 2; ++i) {
        const __m512d x = _mm512_castps_pd(u[2 * i]), y = _mm512_castps_pd(u[2 * i + 1]);
        v[i] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)), _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
    }
    // w = 1.
    return _mm512_add_ps(_mm512_shuffle_ps(v[0], v[1], _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_ps(v[0], v[1], _MM_SHUFFLE(3, 1, 3, 1)));
}

// Per-thread scratch p holding at least `need` values (`have` so far): malloc, not a std
// container (see the top of x86_kernels.inl).
template <class T>
void grow(T*& p, int64_t& have, int64_t need) {
    if (have >= need) return;
    std::free(p);
    p = static_cast<T*>(std::malloc(size_t(need) * sizeof(T)));
    if (!p) throw std::bad_alloc();
    have = need;
}

// BF16 x rows as stored, ldx values apart, widened a chunk at a time into per-thread scratch (the
// avx512bf16 path's rows that vdpbf16ps must not take).
void bf16RowsWidened(const uint16_t* x, int64_t ldx, int64_t rows, const uint16_t* w, int64_t nw, int64_t k, float* out, int64_t ldo) {
    struct Scratch {  // per thread, freed when the thread ends
        float* data = nullptr;
        int64_t capacity = 0;
        ~Scratch() { std::free(data); }
    };
    static thread_local Scratch scratch;
    grow(scratch.data, scratch.capacity, (rows < kWideChunkRows ? rows : kWideChunkRows) * k);
    for (int64_t s0 = 0; s0 < rows; s0 += kWideChunkRows) {
        const int64_t n = rows - s0 < kWideChunkRows ? rows - s0 : kWideChunkRows;
        for (int64_t s = 0; s < n; ++s) widenX(x + (s0 + s) * ldx, k, scratch.data + s * k);
        widenedRows(scratch.data, n, w, nw, k, out + s0 * ldo, ldo);
    }
}

constexpr int kRX = 4, kRW = 4;     // 16 accumulators (treeOf16's 16), 4 weight vectors, x and the permutation: 22 of 32 registers
constexpr int64_t kPairedFromRows = 5;  // fewer x rows take the widened tiles (bf16RowsPaired)
constexpr int64_t kChunkRows = 32;  // x rows per pass over a block of weights (128 KiB at k = 2048, in L2)

// outRows[r][c] for a kRX x kRW tile of paired x rows against paired weight rows, kp values each
// (a whole number of 32s); rows past the last valid one repeat it (their results are discarded),
// so every tile runs the same code. Each step also asks for the cache line at the same offset of
// each of `fetch` rows of `rowBytes` from `prefetch` on, into L2.
void pairedTile(const uint16_t* const xr[kRX], const uint16_t* const wr[kRW], int64_t kp, float* const outRows[kRX], int nx, int nw,
                const char* prefetch, int fetch, int64_t rowBytes) {
    __m512 acc[kRX * kRW];
    for (__m512& a : acc) a = _mm512_setzero_ps();
    for (int64_t i = 0; i < kp; i += 32) {
        for (int f = 0; f < fetch; ++f) _mm_prefetch(prefetch + f * rowBytes + i * 2, _MM_HINT_T1);
        __m512i wv[kRW];
        for (int c = 0; c < kRW; ++c) wv[c] = _mm512_loadu_si512(wr[c] + i);
        for (int r = 0; r < kRX; ++r) {
            const __m512bh xv = (__m512bh)_mm512_loadu_si512(xr[r] + i);
            for (int c = 0; c < kRW; ++c) acc[r * kRW + c] = _mm512_dpbf16_ps(acc[r * kRW + c], xv, (__m512bh)wv[c]);
        }
    }
    alignas(64) float sums[kRX * kRW];
    _mm512_store_ps(sums, treeOf16(acc));
    for (int r = 0; r < nx; ++r)
        for (int c = 0; c < nw; ++c) outRows[r][c] = sums[4 * c + r];  // acc[r * 4 + c]'s sum (treeOf16)
}

// kernel_set.h's bf16Rows, x as pairRows left it, kChunkRows x rows at a time. The weight rows
// are paired kRW at a time as the first chunk reaches them (then in L2 for the other chunks),
// while that chunk's tiles fetch the next kRW rows from memory. Each x row whose values pass
// pairedIsExact with a group of weight rows goes through vdpbf16ps tiles, any other through the
// widened ones.
void bf16RowsPaired(const uint16_t* x, int64_t rows, const uint16_t* w, int64_t nw, int64_t k, float* out, int64_t ldo) {
    struct Scratch {  // per thread, grown as needed (grow, above)
        uint16_t* weights = nullptr;
        ExponentRange* ranges = nullptr;
        int64_t capacity = 0, groups = 0;
        ~Scratch() { std::free(weights), std::free(ranges); }
    };
    static thread_local Scratch scratch;
    const int64_t length = pairedRowLength(k), kp = padded(k);
    const uint16_t* stored = x + kHeader + kp;  // row s as stored: stored + s * length
    // A few x rows (a batch's decode step) use each weight too few times to repay pairing it: at
    // B = 4 the widened tiles ran TinyLlama-shaped BF16 decode at 36 tok/s, paired tiles at 33.
    if (rows < kPairedFromRows) return bf16RowsWidened(stored, length, rows, w, nw, k, out, ldo);
    grow(scratch.weights, scratch.capacity, nw * kp);
    grow(scratch.ranges, scratch.groups, (nw + kRW - 1) / kRW);
    for (int64_t s0 = 0; s0 < rows; s0 += kChunkRows) {
        const int64_t s1 = rows - s0 < kChunkRows ? rows : s0 + kChunkRows;
        // The chunk's rows' exponents together: weights that pass pairedIsExact with them pass
        // with each row, so the row-by-row checks (a counter kept in memory round the widened
        // call: 7% of this function under perf) are needed only where they fail.
        ExponentRange chunk;
        for (int64_t s = s0; s < s1; ++s) {
            const ExponentRange r = rangeOf(x + s * length);
            chunk.lo = r.lo < chunk.lo ? r.lo : chunk.lo;
            chunk.hi = r.hi > chunk.hi ? r.hi : chunk.hi;
            chunk.special = chunk.special || r.special;
        }
        for (int64_t o = 0; o < nw; o += kRW) {
            const int nwt = int(nw - o < kRW ? nw - o : kRW);
            ExponentRange& weights = scratch.ranges[o / kRW];
            if (s0 == 0) weights = pairUpRows(w + o * k, nwt, k, scratch.weights + o * kp, kp);
            int64_t paired[kChunkRows];  // the chunk's rows that vdpbf16ps computes exactly
            int n = 0;
            if (pairedIsExact(weights, chunk))
                for (int64_t s = s0; s < s1; ++s) paired[n++] = s;
            else
                for (int64_t s = s0; s < s1; ++s) {
                    if (pairedIsExact(weights, rangeOf(x + s * length))) {
                        paired[n++] = s;
                        continue;
                    }
                    bf16RowsWidened(stored + s * length, length, 1, w + o * k, nwt, k, out + s * ldo + o, ldo);  // rare: no model the suite runs has such a row
                }
            const uint16_t* wr[kRW];
            for (int c = 0; c < kRW; ++c) wr[c] = scratch.weights + (o + (c < nwt ? c : nwt - 1)) * kp;
            for (int t = 0; t < n; t += kRX) {
                const int nxt = n - t < kRX ? n - t : kRX;
                const uint16_t* xr[kRX];
                float* outRows[kRX];
                for (int r = 0; r < kRX; ++r) {
                    const int64_t s = paired[t + (r < nxt ? r : nxt - 1)];
                    xr[r] = x + s * length + kHeader;
                    outRows[r] = out + s * ldo + o;
                }
                // In the first chunk, the next group's weight rows as stored, shared out over its
                // tiles (all of them in one tile where a few x rows make one tile: a batch's decode).
                const int tiles = (n + kRX - 1) / kRX, perTile = (kRW + tiles - 1) / tiles;
                const int64_t first = o + kRW + int64_t(t / kRX) * perTile;
                const int fetch = s0 > 0 || first >= nw ? 0 : int(nw - first < perTile ? nw - first : perTile);
                pairedTile(xr, wr, kp, outRows, nxt, nwt, fetch ? reinterpret_cast<const char*>(w + first * k) : nullptr, fetch, k * 2);
            }
        }
    }
}

const KernelSet kAvx512Bf16{"avx512bf16", dotBF16, dotBF16Pair, dotQ8_0, dotQ4_0, dotQ4_K, dotQ6_K, bf16RowsPaired, pairedRowLength, pairRows, kLanes, kPanelRows, unpackRows, panel, unpackByteRows, bytePanel, nullptr, nullptr};

}  // namespace

const KernelSet* avx512bf16Kernels() { return &kAvx512Bf16; }

}  // namespace llama::ml::kernels
