#pragma once
#include <complex>
#include <cstddef>
#include <string>

namespace llama {

// I32 holds token ids (the walkthrough's tokens tensor).
enum class DType { F32, BF16, Complex64, I32 };

inline size_t dtypeSize(DType t) {
    switch (t) {
        case DType::F32: return 4;
        case DType::BF16: return 2;
        case DType::Complex64: return 8;
        case DType::I32: return 4;
    }
    return 0;
}

// Names as the walkthrough log prints them.
inline const char* dtypeName(DType t) {
    switch (t) {
        case DType::F32: return "F32";
        case DType::BF16: return "BF16";
        case DType::Complex64: return "Complex64";
        case DType::I32: return "Int32";
    }
    return "?";
}

using Complex64 = std::complex<float>;

}  // namespace llama
