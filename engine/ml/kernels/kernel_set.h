#pragma once
// The inner loops of LinearTransformation, one implementation per instruction set, chosen when
// the program starts from what the CPU reports (and overridable, so tests and `bench` can run
// every path this CPU can execute):
//   avx512  AVX-512 F/BW/VL with VNNI (Ice Lake, Zen 4 and later)
//   avx512bf16 the same with AVX512_BF16 (Zen 4, Sapphire Rapids): BF16 prefill on vdpbf16ps
//   avx2    AVX2 + FMA + F16C (Haswell, Zen 1-3 and later)
//   simd128 WebAssembly SIMD, 128-bit lanes (the browser build)
//   relaxed-simd simd128 with relaxed SIMD's int8 dot product in the integer decode kernels and
//           the Q4_0/K-quant prefill panels, and its fused multiply-add for BF16 x . BF16 w (the
//           browser's modules built with relaxed SIMD, loaded where the browser has it)
//   generic plain C++, compiled for baseline x86-64 (or whatever the target is)
//   reference no kernels: LinearTransformation decodes quantized weights to F32 and dots them
//           in F32 (the method before the integer kernels; what their tests compare with, so it
//           stays outside the canonical arithmetic below on purpose)
// Each lives in its own source file compiled with its own -march (see CMakeLists.txt), so one
// binary carries all of them.
//
// The paths differ in speed only. Each computes one canonical arithmetic in its own registers,
// so all give the same bits (docs/speed.md, "The same numbers on every machine"): float dot
// products as dot_kernels.h states (16 partial sums, element i in partial i % 16, each product
// rounded before it is added, a fixed tree); a product is fused only where both factors are
// BF16, whose product is exact in F32. AVX512_BF16's vdpbf16ps pairs other elements in a lane and
// flushes subnormals: avx512bf16 permutes its operands into the canonical pairs and uses it only
// where no value or sum can be subnormal (kernels_avx512bf16.cpp says how that is known).
//
// Quantized weights are multiplied in integer arithmetic, as llama.cpp does: x is quantized
// once per LinearTransformation to 8 bits in blocks that line up with the weight format's
// blocks (activation_quant.h), then each block's dot product is a sum of int8 x int8 (or
// uint4/uint6 x int8) products, scaled once per block by the two blocks' scales. The integer
// sum is exact, so each instruction set may group it as it likes; the scaling is the canonical
// one (a fixed order of float products, none fused), and a row adds its blocks' terms in block
// order from +0, in the dot kernels and the prefill panels alike, so a row's result does not
// depend on how many x rows shared the call.
//
// Every dot kernel dots ONE weight row with nx rows of x (nx <= kMaxRows): decode is the
// nx = 1 case. Prefill with quantized weights is a matrix product instead (the int16 panels
// below): each weight is used for `lanes` x rows per load, and each block's integer sums are
// scaled to F32 once for all of them.
#include <cstdint>
#include <string>
#include <vector>

#include "ml/kernels/activation_blocks.h"

namespace llama::ml::kernels {

constexpr int kMaxRows = 4;

// The block formats with integer kernels (tensor/dtype.h's DType is not used here: these files
// must not share inline code with the rest of the program, see x86_kernels.inl).
enum class BlockFormat { Q8_0, Q4_0, Q4_K, Q6_K };

// ---- quantized weights: what every path computes --------------------------------------------
// The canonical scaling named above (docs/speed.md, "Block-quantized weights"), in the dot kernels
// and in panel and bytePanel alike. Block b of a weight row (dw, d, dmin: its f16 scales as float;
// dx: x's block scale) has an exact int32 sum s and a term t_b, computed without fused
// multiply-adds (a multiply, then a subtract or an add):
//   Q8_0  s = sum q_w * q_x                                    t_b = dx * (dw * float(s))
//   Q4_0  s = sum (q_w - 8) * q_x                              t_b = dx * (dw * float(s))
//   Q6_K  s = sum_g scale_g * sum_{i in g} (q_w - 32) * q_x    t_b = dx * (d * float(s))
//   Q4_K  s = sum_j sc_j * sum_{i in j} q_w * q_x,
//         m = sum_j m_j * (the sum of q_x over sub-block j)    t_b = dx * (d * float(s) - dmin * float(m))
// and the row's result adds the terms one at a time in block order: ((+0.0f + t_0) + t_1) + ...
// The integer sums may be formed in any order; float(s) rounds to nearest even where s needs more
// than 24 bits, as C++'s conversion and the SIMD ones do. kernels_generic.cpp is the plain statement.

// ---- prefill panels -------------------------------------------------------------------------
// Weight rows unpacked to int16 with every scale folded in that is not F32: block b of row r
// holds w ~ d[r][b] * q[r][b * B + i] (B = 32 for Q8_0/Q4_0, 256 for the K-quants; Q6_K's
// int8 sub-block scales and Q4_K's 6-bit ones are multiplied into q, |q| <= 4096), minus, for
// Q4_K, dmin[r][b] * mins[r][b][j] on every weight of 32-wide sub-block j.
struct Int16Rows {
    int16_t* q;     // [rows][k]
    float* d;       // [rows][blocks]
    int16_t* mins;  // [rows][blocks][8], Q4_K only
    float* dmin;    // [rows][blocks], Q4_K only
};
// `lanes` x rows quantized as in activation_blocks.h and interleaved, so one vector load
// gives the same two values of every row: x ~ d[b][lane] * q[i / 2][lane][i % 2] for i in
// block b, and sums[b][j / 2][lane][j % 2] = the sum of q over x's 32-wide sub-block j (Q4_K).
struct PackedX {
    const int16_t* q;     // [k / 2][lanes][2]
    const float* d;       // [blocks][lanes]
    const int16_t* sums;  // [blocks][4][lanes][2]
};
constexpr int kMaxPanelRows = 8;  // the most weight rows any path's KernelSet::panel takes per call

// Q8_0 and Q4_0 prefill where the CPU has 8-bit dot products (VNNI's vpdpbusd: four u8 x s8
// products added into each int32 lane, twice the int16 panels' multiply-adds per instruction).
// The weights stay signed bytes (Q4_0's nibbles minus 8), so a weight group of four can be
// broadcast straight from memory into the instruction; x is the unsigned side, shifted by
// 128, which adds 128 * (the sum of the weight block's q) to each block's sum: `offset` holds
// that term negated, and each block's sum starts from it.
struct ByteRows {
    int8_t* q;        // [rows][k]
    float* d;         // [rows][blocks of 32]
    int32_t* offset;  // [rows][blocks]: -128 * sum of the block's q
};
// x quantized in blocks of 32 (activation_blocks.h), x ~ d[b][lane] * (q[i / 4][lane][i % 4] - 128).
struct PackedXBytes {
    const uint8_t* q;  // [k / 4][lanes][4]
    const float* d;    // [blocks][lanes]
};

// Q4_0 and K-quant prefill on an 8-bit dot product whose second operand is 7-bit (relaxed SIMD's
// i16x8.relaxed_dot_i8x16_i7x16_s: where a lane of that operand is above 127 its result differs
// between machines). The weights' stored values go in as they are, unsigned and below 64 (Q4_0's
// and Q4_K's nibbles, Q6_K's 6-bit values before their "- 32"), so four of them are broadcast
// from four bytes and each int32 lane gets four products; the sub-block scales multiply the
// sub-blocks' integer sums, and the offsets and Q4_K's minimums are the rows' coefficients times
// x's sums over 16 values (Q8_0's signed bytes do not fit the 7-bit operand: its prefill keeps
// the int16 panels). Block b of row r (G = blockSize / 16 groups of 16 values):
//   s = sum_g scales[r][b][g] * (the sum of group g's products q_w * q_x)
//       + [Q4_0, Q6_K] sum_g coefs[r][b][g] * (the sum of q_x over group g)
//   m = [Q4_K] sum_g coefs[r][b][g] * (the sum of q_x over group g)
// with scales 1 (Q4_0), scale_g (Q6_K) or the scale of g's 32-wide sub-block (Q4_K), and coefs
// -8 (Q4_0), -32 * scale_g (Q6_K) or the minimum of g's sub-block (Q4_K): the integers s and m of
// the canonical scaling above, so the same bits.
struct SmallValueRows {
    uint8_t* q;       // [rows][k], each in [0, 63]
    float* d;         // [rows][blocks]
    int16_t* scales;  // [rows][blocks][G]
    int16_t* coefs;   // [rows][blocks][G]
    float* dmin;      // [rows][blocks], Q4_K only
};
// x quantized as in activation_blocks.h and interleaved four values a lane:
// x ~ d[b][lane] * q[i / 4][lane][i % 4], and sums[i / 32][lane][(i / 16) % 2] = the sum of q
// over x's 16-value group of i (at most 16 * 127 in magnitude).
struct PackedXSigned {
    const int8_t* q;      // [k / 4][lanes][4]
    const float* d;       // [blocks][lanes]
    const int16_t* sums;  // [k / 32][lanes][2]
};

struct KernelSet {
    const char* name;
    // BF16 weights: out[s] = sum_i x[s * ldx + i] * w[i] for s < nx, F32 accumulation.
    void (*dotBF16)(const float* x, int64_t ldx, int nx, const uint16_t* w, int64_t k, float* out);
    // Decode with BF16 x: x . w, both as stored (widened in registers, F32 accumulation). x in
    // F32 is twice the size of a weight row, and at k = 5632 (an FFN's down projection) it no
    // longer stayed in L1 beside the streaming weights: that matrix streamed at 70% of the
    // others' rate, and at 95-100% with x in BF16.
    float (*dotBF16Pair)(const uint16_t* x, const uint16_t* w, int64_t k);
    // Block-quantized weight row of `blocks` blocks against nx quantized x rows (ldx blocks apart).
    void (*dotQ8_0)(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out);
    void (*dotQ4_0)(const uint8_t* w, const BlockQ8x32* x, int64_t ldx, int nx, int64_t blocks, float* out);
    void (*dotQ4_K)(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out);
    void (*dotQ6_K)(const uint8_t* w, const BlockQ8x256* x, int64_t ldx, int nx, int64_t blocks, float* out);
    // Prefill with BF16 x (as stored, or as prepareRows below left it) and BF16 weights as stored
    // (widened in registers; null on the generic and simd128 paths, where the weights are widened
    // to F32 scratch): out[s * ldo + o] = sum_i x[s * k + i] * w[o * k + i] for s < rows, o < nw.
    void (*bf16Rows)(const uint16_t* x, int64_t rows, const uint16_t* w, int64_t nw, int64_t k, float* out, int64_t ldo);
    // x rows made ready for bf16Rows once per call rather than once per block of weight rows
    // (null where bf16Rows takes x as stored): preparedRowLength(k) 16-bit words per row, which
    // bf16Rows then takes in place of x. The x86 paths widen them to F32 in their tiles' layout
    // (x86_kernels.inl), avx512bf16 permutes them into vdpbf16ps's pairs (kernels_avx512bf16.cpp),
    // relaxed-simd widens them in even and odd halves (simd128_parts.inl).
    int64_t (*preparedRowLength)(int64_t k);
    void (*prepareRows)(const uint16_t* x, int64_t rows, int64_t k, uint16_t* out);
    // Quantized prefill: x rows per PackedX (the vector width in int32 lanes; 0 where the dot
    // kernels above serve prefill too), weight rows per panel call (as many as the registers
    // hold accumulators for), rows weight rows of rowBytes each unpacked into out (first row at
    // out's start), and out[r * lanes + lane] = weight row r0 + r (r < nr <= panelRows) dotted
    // with x row `lane` of the group.
    int lanes;
    int panelRows;
    void (*unpackRows)(BlockFormat f, const uint8_t* w, size_t rowBytes, int64_t rows, int64_t k, const Int16Rows& out);
    void (*panel)(BlockFormat f, const Int16Rows& w, int64_t r0, int nr, int64_t k, const PackedX& x, float* out);
    // Q8_0/Q4_0 prefill with byte panels (ByteRows; null where the CPU has no 8-bit dot
    // product): the same contract as unpackRows and panel, `lanes` x rows per PackedXBytes.
    void (*unpackByteRows)(BlockFormat f, const uint8_t* w, size_t rowBytes, int64_t rows, int64_t k, const ByteRows& out);
    void (*bytePanel)(const ByteRows& w, int64_t r0, int nr, int64_t k, const PackedXBytes& x, float* out);
    // Q4_0, Q4_K and Q6_K prefill with small-value panels (SmallValueRows; null where the path
    // has none): the same contract again, `lanes` x rows per PackedXSigned.
    void (*unpackSmallValueRows)(BlockFormat f, const uint8_t* w, size_t rowBytes, int64_t rows, int64_t k, const SmallValueRows& out);
    void (*smallValuePanel)(BlockFormat f, const SmallValueRows& w, int64_t r0, int nr, int64_t k, const PackedXSigned& x, float* out);
};

// The kernels in use: the fastest this CPU runs, unless LLAMA_KERNELS (reference, generic,
// avx2, avx512, avx512bf16, simd128) or useKernels() chose another.
const KernelSet& active();
// Names of the kernel paths this CPU can execute, slowest first ("generic" always; not
// "reference", which is always available).
std::vector<std::string> supportedPaths();
// Switches every later LinearTransformation to the named path; throws std::invalid_argument
// naming the supported ones if this CPU cannot run it.
void useKernels(const std::string& name);

// The implementations (null where the compiler could not build one).
const KernelSet* genericKernels();
const KernelSet* avx2Kernels();
const KernelSet* avx512Kernels();
const KernelSet* avx512bf16Kernels();
const KernelSet* simd128Kernels();
const KernelSet* relaxedSimdKernels();

}  // namespace llama::ml::kernels
