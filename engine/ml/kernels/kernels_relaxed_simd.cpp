// The relaxed-SIMD path (the browser module built with -mrelaxed-simd, loaded where the browser
// validates relaxed SIMD): the simd128 path with the quantized decode dot products on
// i16x8.relaxed_dot_i8x16_i7x16_s, which multiplies 16 int8 values by 16 7-bit ones and adds the
// products in pairs, one instruction where simd128 takes two extmuls and an add.
//
// Relaxed instructions may give different results on different hardware; this one only where its
// second operand has a lane above 127 (read as signed or as unsigned) or a pair's sum leaves
// int16 (saturated or wrapped). Neither can happen here: the second operand is a Q4_0 or Q4_K
// nibble (0..15), a Q6_K value before its -32 (0..63), or a part of x (below, 0..127), so every
// lane is in [0, 127]; and a pair's sum is at most 2 * 128 * 127 = 32512 in magnitude. Each lane
// is then the exact integer sum of its two products on every engine, the block's integer sum is
// the one simd128 forms with other pairs, and its float term, computed as before, has the same
// bits (kernel_set.h). f32x4.relaxed_madd, which fuses or not as the machine has it, only where
// that cannot show: BF16 x . BF16 w (decode, and prefill's BF16 tiles), whose products are exact
// in F32 (the avx2 path fuses them too); elsewhere the canonical arithmetic rounds a product before
// adding it.
// Prefill: Q4_0's and the K-quants' weights in small-value panels (kernel_set.h, SmallValueRows),
// their stored values as the instruction's 7-bit operand, four products per int32 lane where
// simd128's int16 panels get two; Q8_0 keeps simd128's int16 panels (its signed bytes do not fit
// that operand; split as above, each four products would take two instructions, no fewer than
// the int16 panels take).
#pragma clang diagnostic ignored "-Wunused-function"
#include "ml/kernels/simd128_quant_dots.inl"

#if !defined(__wasm_relaxed_simd__)
#error "kernels_relaxed_simd.cpp needs -mrelaxed-simd (clang 19: make web, docs/web.md)"
#endif

namespace llama::ml::kernels {

namespace {

// BF16 x . BF16 w with one relaxed_madd per four products (FMA where the machine has it): decode,
// and prefill's BF16 tiles (simd128_parts.inl). The bundled model's prefill in chromium 156
// (medians of 80 runs) went from 1183 to 1513 tok/s single-threaded and from 1628 to 2372 on two
// threads with these tiles. The same tiles with simd128's multiply and add were slower than its
// F32 tiles (1285 to 1187, and 1735 to 1424): the simd128 path keeps those.
inline v128_t fusedMulAdd(v128_t acc, v128_t a, v128_t b) { return wasm_f32x4_relaxed_madd(a, b, acc); }
float dotBF16Pair(const uint16_t* x, const uint16_t* w, int64_t k) { return dotBF16PairWith<fusedMulAdd>(x, w, k); }
void bf16Rows(const uint16_t* x, int64_t rows, const uint16_t* w, int64_t nw, int64_t k, float* out, int64_t ldo) {
    bf16RowsWith<fusedMulAdd>(x, rows, w, nw, k, out, ldo);
}

// u (bytes in [0, 127]) times x (int8), pairs of products added into int16 lanes.
inline v128_t relaxedProducts16(v128_t u, v128_t x) { return wasm_i16x8_relaxed_dot_i8x16_i7x16(x, u); }
// Q8_0's signed weights w times x: x's int8 values (in [-127, 127]: activation_quant.cpp never
// makes -128, whose negation would not fit) split into their positive and negative parts, each in
// [0, 127], which the relaxed instruction's 7-bit operand takes, and w.x = w.x+ - w.x-. Each
// instruction's pair sum is at most 2 * 128 * 127 = 32512 in magnitude, and so is the difference:
// exact in int16 on every engine.
inline v128_t relaxedSignedProducts16(v128_t w, v128_t x) {
    const v128_t zero = wasm_i8x16_splat(0);
    const v128_t positive = wasm_i8x16_max(x, zero), negative = wasm_i8x16_max(wasm_i8x16_neg(x), zero);
    return wasm_i16x8_sub(wasm_i16x8_relaxed_dot_i8x16_i7x16(w, positive), wasm_i16x8_relaxed_dot_i8x16_i7x16(w, negative));
}

void dotQ8_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    dotQ8_0With<relaxedSignedProducts16>(w, x, ldx, nx, blocks, out);
}
void dotQ4_0(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    dotQ4_0With<relaxedProducts16>(w, x, ldx, nx, blocks, out);
}

void dotQ4_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    dotQ4_KWith<relaxedProducts16>(w, x, ldx, nx, blocks, out);
}
void dotQ6_K(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out) {
    dotQ6_KWith<relaxedProducts16, true>(w, x, ldx, nx, blocks, out);
}

// ---- prefill: small-value panels ------------------------------------------------------------

template <BlockFormat F>
void unpackSmallValueRowsOf(const uint8_t* w, size_t rowBytes, int64_t rows, int64_t k, const SmallValueRows& out) {
    constexpr int64_t size = panelBlockSize(F), groups = size / 16;
    const int64_t blocks = k / size;
    const size_t blockBytes = rowBytes / size_t(blocks);
    // Locals, not out's members: stores through uint8_t* may alias them.
    uint8_t* q = out.q;
    int16_t* scales = out.scales;
    int16_t* coefs = out.coefs;
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t b = 0; b < blocks; ++b, q += size, scales += groups, coefs += groups) {
            const uint8_t* blk = w + size_t(r) * rowBytes + size_t(b) * blockBytes;
            const int64_t at = r * blocks + b;
            if constexpr (F == BlockFormat::Q4_0) {  // f16 d, weight i in byte i's low nibble, i + 16 in its high one
                out.d[at] = halfAtFromTable(blk);
                for (int i = 0; i < 16; ++i) {
                    q[i] = blk[2 + i] & 0x0f;
                    q[i + 16] = blk[2 + i] >> 4;
                }
                for (int g = 0; g < 2; ++g) scales[g] = 1, coefs[g] = -8;
            } else if constexpr (F == BlockFormat::Q4_K) {  // w = d * sc[j] * q - dmin * m[j] in 32-wide sub-block j
                out.d[at] = halfAtFromTable(blk);
                out.dmin[at] = halfAtFromTable(blk + 2);
                uint8_t sc[8], m[8];
                unpackQ4KScales(blk + 4, sc, m);
                const uint8_t* qs = blk + 16;
                for (int p = 0; p < 4; ++p)
                    for (int l = 0; l < 32; ++l) {
                        q[64 * p + l] = qs[32 * p + l] & 0x0f;
                        q[64 * p + 32 + l] = qs[32 * p + l] >> 4;
                    }
                for (int g = 0; g < 16; ++g) scales[g] = sc[g / 2], coefs[g] = m[g / 2];
            } else {  // Q6_K: w = d * scale[g] * (q - 32) in 16-wide group g
                out.d[at] = halfAtFromTable(blk + 208);
                const auto* scale = reinterpret_cast<const int8_t*>(blk + 192);
                for (int half = 0; half < 2; ++half)
                    for (int c = 0; c < 2; ++c) {
                        v128_t v[4];  // groups 8 * half + c + 2 * j
                        q6kGroups(blk, half, c, v);
                        for (int j = 0; j < 4; ++j) wasm_v128_store(q + 16 * (8 * half + c + 2 * j), v[j]);
                    }
                for (int g = 0; g < 16; ++g) scales[g] = scale[g], coefs[g] = int16_t(-32 * scale[g]);
            }
        }
}

void unpackSmallValueRows(BlockFormat f, const uint8_t* w, size_t rowBytes, int64_t rows, int64_t k, const SmallValueRows& out) {
    switch (f) {
        case BlockFormat::Q4_0: return unpackSmallValueRowsOf<BlockFormat::Q4_0>(w, rowBytes, rows, k, out);
        case BlockFormat::Q4_K: return unpackSmallValueRowsOf<BlockFormat::Q4_K>(w, rowBytes, rows, k, out);
        case BlockFormat::Q6_K: return unpackSmallValueRowsOf<BlockFormat::Q6_K>(w, rowBytes, rows, k, out);
        case BlockFormat::Q8_0: break;  // not a small-value format (LinearPlan never asks)
    }
}

constexpr int kLanes = 4;  // x rows per PackedXSigned group: simd128's lanes

// NR weight rows against one group of kLanes x rows. Each step is one x load (four values of
// each of the four rows) and, per weight row, four weight values broadcast from memory into one
// relaxed dot product, whose pair sums are added in int16 lanes over a span of `span` values:
// at most 2 * 127 * 15 a pair for the nibbles (8 steps of them: 30480), 2 * 127 * 63 for Q6_K's
// values (2 steps: 32004), so the int16 sums are exact; then the span's scale, splat from memory
// (v128.load16_splat: one instruction), multiplies them into the int32 lanes with one
// i32x4.dot_i16x8.
template <int NR, BlockFormat F>
void smallValuePanelN(const SmallValueRows& w, int64_t r0, int64_t k, const PackedXSigned& x, float* out) {
    constexpr int64_t size = panelBlockSize(F), groups = size / 16;
    constexpr int span = F == BlockFormat::Q6_K ? 8 : 32;
    const int64_t blocks = k / size;
    v128_t acc[NR];
    for (int r = 0; r < NR; ++r) acc[r] = wasm_f32x4_splat(0.0f);
    for (int64_t b = 0; b < blocks; ++b) {
        const int8_t* xq = x.q + b * size * kLanes;
        const uint8_t* wq = w.q + r0 * k + b * size;
        const int64_t at0 = r0 * blocks + b;  // row r's block: at0 + r * blocks
        v128_t sum[NR];
        for (int r = 0; r < NR; ++r) sum[r] = wasm_i32x4_splat(0);
        for (int s0 = 0; s0 < size; s0 += span) {
            v128_t part[NR];
            for (int r = 0; r < NR; ++r) part[r] = wasm_i16x8_splat(0);
            for (int i = s0; i < s0 + span; i += 4) {
                const v128_t xv = load(xq + i * kLanes);
                for (int r = 0; r < NR; ++r)
                    part[r] = wasm_i16x8_add(part[r], relaxedProducts16(wasm_v128_load32_splat(wq + r * k + i), xv));
            }
            for (int r = 0; r < NR; ++r)
                sum[r] = wasm_i32x4_add(sum[r], wasm_i32x4_dot_i16x8(part[r], wasm_v128_load16_splat(w.scales + (at0 + r * blocks) * groups + s0 / 16)));
        }
        // The rows' coefficients times x's 16-value sums, two groups (a pair splat from memory) per
        // i32x4.dot_i16x8.
        v128_t bySums[NR];
        for (int r = 0; r < NR; ++r) bySums[r] = wasm_i32x4_splat(0);
        const int16_t* xs = x.sums + b * groups * kLanes;  // [groups / 2][lanes][2]
        for (int g = 0; g < groups; g += 2) {
            const v128_t xsv = load(xs + g * kLanes);
            for (int r = 0; r < NR; ++r)
                bySums[r] = wasm_i32x4_add(bySums[r], wasm_i32x4_dot_i16x8(wasm_v128_load32_splat(w.coefs + (at0 + r * blocks) * groups + g), xsv));
        }
        // The block's term (kernel_set.h), one per lane: a multiply, then a subtract or an add.
        const v128_t dx = load(x.d + b * kLanes);
        for (int r = 0; r < NR; ++r) {
            const int64_t at = at0 + r * blocks;
            v128_t term;
            if constexpr (F == BlockFormat::Q4_K)
                term = wasm_f32x4_mul(dx, wasm_f32x4_sub(wasm_f32x4_mul(wasm_f32x4_splat(w.d[at]), wasm_f32x4_convert_i32x4(sum[r])),
                                                         wasm_f32x4_mul(wasm_f32x4_splat(w.dmin[at]), wasm_f32x4_convert_i32x4(bySums[r]))));
            else
                term = wasm_f32x4_mul(dx, wasm_f32x4_mul(wasm_f32x4_splat(w.d[at]), wasm_f32x4_convert_i32x4(wasm_i32x4_add(sum[r], bySums[r]))));
            acc[r] = wasm_f32x4_add(acc[r], term);
        }
    }
    for (int r = 0; r < NR; ++r) wasm_v128_store(out + r * kLanes, acc[r]);
}

template <BlockFormat F>
void smallValuePanelRows(const SmallValueRows& w, int64_t r0, int nr, int64_t k, const PackedXSigned& x, float* out) {
    switch (nr) {
        case 1: return smallValuePanelN<1, F>(w, r0, k, x, out);
        case 2: return smallValuePanelN<2, F>(w, r0, k, x, out);
        case 3: return smallValuePanelN<3, F>(w, r0, k, x, out);
        default: return smallValuePanelN<4, F>(w, r0, k, x, out);
    }
}

void smallValuePanel(BlockFormat f, const SmallValueRows& w, int64_t r0, int nr, int64_t k, const PackedXSigned& x, float* out) {
    switch (f) {
        case BlockFormat::Q4_0: return smallValuePanelRows<BlockFormat::Q4_0>(w, r0, nr, k, x, out);
        case BlockFormat::Q4_K: return smallValuePanelRows<BlockFormat::Q4_K>(w, r0, nr, k, x, out);
        case BlockFormat::Q6_K: return smallValuePanelRows<BlockFormat::Q6_K>(w, r0, nr, k, x, out);
        case BlockFormat::Q8_0: break;  // not a small-value format (LinearPlan never asks)
    }
}

}  // namespace

const KernelSet* relaxedSimdKernels() {
    static const KernelSet set = [] {
        KernelSet s = *simd128Kernels();
        s.name = "relaxed-simd";
        s.dotBF16Pair = dotBF16Pair;
        s.bf16Rows = bf16Rows;
        s.preparedRowLength = evenOddRowLength;
        s.prepareRows = evenOddRows;
        s.dotQ8_0 = dotQ8_0;
        s.dotQ4_0 = dotQ4_0;
        s.dotQ4_K = dotQ4_K;
        s.dotQ6_K = dotQ6_K;
        if (s.lanes == kLanes) {  // the panels are written for simd128's x rows per group (the plan test expects them)
            s.unpackSmallValueRows = unpackSmallValueRows;
            s.smallValuePanel = smallValuePanel;
        }
        return s;
    }();
    return &set;
}

}  // namespace llama::ml::kernels
