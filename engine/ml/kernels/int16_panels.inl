// Unpacking quantized weight rows into the int16 panels of kernel_set.h (Int16Rows), the
// weight side of quantized prefill. Plain C++, included by every kernel file and compiled with
// that file's -march, so the loops are vectorized for each instruction set. The including file
// defines halfAt (the f16 value at p); everything has internal linkage (x86_kernels.inl says why).
#include "tensor/quant_blocks.h"

namespace llama::ml::kernels {

namespace {

constexpr int64_t panelBlockSize(BlockFormat f) { return f == BlockFormat::Q8_0 || f == BlockFormat::Q4_0 ? 32 : 256; }

// Q6_K's 256 6-bit values in natural order (layout in quant_blocks.h): low 4 bits from ql,
// bits 4-5 from qh.
inline void q6kValues(const uint8_t* w, uint8_t q[256]) {
    for (int half = 0; half < 2; ++half) {
        const uint8_t* ql = w + 64 * half;
        const uint8_t* qh = w + 128 + 32 * half;
        uint8_t* y = q + 128 * half;
        for (int l = 0; l < 32; ++l) {
            y[l] = uint8_t((ql[l] & 0x0f) | ((qh[l] & 3) << 4));
            y[l + 32] = uint8_t((ql[l + 32] & 0x0f) | (((qh[l] >> 2) & 3) << 4));
            y[l + 64] = uint8_t((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4));
            y[l + 96] = uint8_t((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4));
        }
    }
}

// One block of weights into q[0 .. B) and its scales; blk points at the stored block. A
// template, so each format's loops are compiled (and vectorized) on their own.
template <BlockFormat F>
inline void unpackBlock(const uint8_t* blk, int16_t* q, float& d, int16_t* mins, float& dmin) {
    if constexpr (F == BlockFormat::Q8_0) {  // f16 d, int8 q[32]
        d = halfAt(blk);
        const auto* v = reinterpret_cast<const int8_t*>(blk + 2);
        for (int i = 0; i < 32; ++i) q[i] = v[i];
    } else if constexpr (F == BlockFormat::Q4_0) {  // f16 d, weight i in byte i's low nibble, i + 16 in its high one, minus 8
        d = halfAt(blk);
        for (int i = 0; i < 16; ++i) {
            q[i] = int16_t((blk[2 + i] & 0x0f) - 8);
            q[i + 16] = int16_t((blk[2 + i] >> 4) - 8);
        }
    } else if constexpr (F == BlockFormat::Q4_K) {  // w = d * sc[j] * q - dmin * m[j] in 32-wide sub-block j
        d = halfAt(blk);
        dmin = halfAt(blk + 2);
        uint8_t sc[8], m[8];
        unpackQ4KScales(blk + 4, sc, m);
        const uint8_t* qs = blk + 16;
        for (int p = 0; p < 4; ++p)
            for (int l = 0; l < 32; ++l) {
                q[64 * p + l] = int16_t(sc[2 * p] * (qs[32 * p + l] & 0x0f));
                q[64 * p + 32 + l] = int16_t(sc[2 * p + 1] * (qs[32 * p + l] >> 4));
            }
        for (int j = 0; j < 8; ++j) mins[j] = m[j];
    } else {  // Q6_K: w = d * scale[g] * (q - 32) in 16-wide group g
        d = halfAt(blk + 208);
        const auto* scale = reinterpret_cast<const int8_t*>(blk + 192);
        uint8_t v[256];
        q6kValues(blk, v);
        for (int g = 0; g < 16; ++g)
            for (int i = 0; i < 16; ++i) q[16 * g + i] = int16_t(scale[g] * (v[16 * g + i] - 32));
    }
}

template <BlockFormat F>
void unpackRowsOf(const uint8_t* w, size_t rowBytes, int64_t rows, int64_t k, const Int16Rows& out) {
    const int64_t size = panelBlockSize(F), blocks = k / size;
    const size_t blockBytes = rowBytes / size_t(blocks);
    float unusedDmin = 0.0f;
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t b = 0; b < blocks; ++b) {
            const int64_t at = r * blocks + b;
            constexpr bool mins = F == BlockFormat::Q4_K;
            unpackBlock<F>(w + size_t(r) * rowBytes + size_t(b) * blockBytes, out.q + r * k + b * size, out.d[at],
                           mins ? out.mins + 8 * at : nullptr, mins ? out.dmin[at] : unusedDmin);
        }
}

void unpackRows(BlockFormat f, const uint8_t* w, size_t rowBytes, int64_t rows, int64_t k, const Int16Rows& out) {
    switch (f) {
        case BlockFormat::Q8_0: return unpackRowsOf<BlockFormat::Q8_0>(w, rowBytes, rows, k, out);
        case BlockFormat::Q4_0: return unpackRowsOf<BlockFormat::Q4_0>(w, rowBytes, rows, k, out);
        case BlockFormat::Q4_K: return unpackRowsOf<BlockFormat::Q4_K>(w, rowBytes, rows, k, out);
        case BlockFormat::Q6_K: return unpackRowsOf<BlockFormat::Q6_K>(w, rowBytes, rows, k, out);
    }
}

}  // namespace
}  // namespace llama::ml::kernels
