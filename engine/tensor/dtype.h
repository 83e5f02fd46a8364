#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

namespace llama {

// I32 holds token ids (the walkthrough's tokens tensor).
// F16 and the block-quantized types (ggml's Q8_0, Q4_0, Q4_K, Q6_K; layouts in
// quant_blocks.h) only hold weights loaded from GGUF files: LinearTransformation and
// Fwd_Get_Rows decode them, every other op works on F32/BF16.
enum class DType { F32, BF16, Complex64, I32, F16, Q8_0, Q4_0, Q4_K, Q6_K };

// Elements per block: 1 for plain types; a quantized tensor's last dimension is whole blocks.
inline int64_t dtypeBlockSize(DType t) {
    switch (t) {
        case DType::Q8_0:
        case DType::Q4_0: return 32;
        case DType::Q4_K:
        case DType::Q6_K: return 256;
        default: return 1;
    }
}

// Bytes per block (for plain types: per element).
inline size_t dtypeBlockBytes(DType t) {
    switch (t) {
        case DType::F32: return 4;
        case DType::BF16: return 2;
        case DType::Complex64: return 8;
        case DType::I32: return 4;
        case DType::F16: return 2;
        case DType::Q8_0: return 34;   // f16 scale + 32 x int8
        case DType::Q4_0: return 18;   // f16 scale + 32 x 4 bits
        case DType::Q4_K: return 144;  // f16 d, f16 dmin, 12 bytes of 6-bit scales/mins, 256 x 4 bits
        case DType::Q6_K: return 210;  // 256 x (4 + 2) bits, 16 x int8 scales, f16 d
    }
    return 0;
}

inline bool isQuantized(DType t) { return dtypeBlockSize(t) > 1; }

// Bytes of one element; only meaningful for types that are not block-quantized.
inline size_t dtypeSize(DType t) { return isQuantized(t) ? 0 : dtypeBlockBytes(t); }

// Bytes of n elements (n a multiple of the block size).
inline size_t dtypeBytes(DType t, int64_t n) { return size_t(n / dtypeBlockSize(t)) * dtypeBlockBytes(t); }

// Names as the walkthrough log prints them.
inline const char* dtypeName(DType t) {
    switch (t) {
        case DType::F32: return "F32";
        case DType::BF16: return "BF16";
        case DType::Complex64: return "Complex64";
        case DType::I32: return "Int32";
        case DType::F16: return "F16";
        case DType::Q8_0: return "Q8_0";
        case DType::Q4_0: return "Q4_0";
        case DType::Q4_K: return "Q4_K";
        case DType::Q6_K: return "Q6_K";
    }
    return "?";
}

using Complex64 = std::complex<float>;

}  // namespace llama
