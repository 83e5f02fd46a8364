#pragma once
// y = A·B for a few rows of A at a time, each output summed over k in increasing k, one rounded
// product added at a time from +0 (the canonical order of ml::MatMul, docs/speed.md): the vector
// lanes run across output columns, never along k, so neither the vector width nor how many rows
// share a tile changes a bit. Used by MatMul (attention's products) and by the linear layers'
// backward (backward_ops.h), whose dy·W and dyᵀ·x read both operands where they lie, no transposes.
//
// A tile holds kTileRows rows × kTileVectors vectors of columns in registers for the whole k
// loop, so a row of B, loaded once per k, serves every row of the tile (one row at a time loaded
// B's vectors for as many multiply-adds: the loads set the pace).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#include "ml/op_util.h"

namespace llama::ml::detail {

// GCC/Clang vector extension, one register of the target's widest float vectors (wider ones
// are split into several, and GCC 12 then kept them on the stack).
#if defined(__AVX512F__)
inline constexpr int kColsWidth = 16;
inline constexpr int kTileRows = 6;  // 24 of AVX-512's 32 registers hold sums
inline constexpr int kTileVectors = 4;
#elif defined(__AVX__)
// 12 of 16 registers hold sums, with room beside them for B's two vectors, the broadcast value of A
// and a product. As 3 rows × 4 vectors, B's four did not fit beside the sums, so GCC loaded each
// of them once per row: 12 loads for 12 multiplies and adds, and the loads set the pace (on one
// Zen 3 core, 22-35 GFLOP/s with N = 1024 or 256 columns against 99 for the multipliers and adders).
inline constexpr int kColsWidth = 8;
inline constexpr int kTileRows = 6;
inline constexpr int kTileVectors = 2;
#else
inline constexpr int kColsWidth = 4;
inline constexpr int kTileRows = 3;
inline constexpr int kTileVectors = 4;
#endif
typedef float Cols __attribute__((vector_size(kColsWidth * sizeof(float))));
inline constexpr int64_t kCols = kTileVectors * kColsWidth;

template <class B_>
inline Cols loadCols(const B_* b) {
#ifdef __wasm_simd128__
    // clang 14 builds the generic loop below as four scalar loads and lane inserts (the attention
    // products were a fifth of the browser build's decode): four bf16 widened in one load, then
    // shifted into the top halves of f32 lanes.
    if constexpr (std::is_same_v<B_, BFloat16>) return Cols(wasm_i32x4_shl(wasm_u32x4_load16x4(b), 16));
#endif
    Cols v;
    for (int j = 0; j < kColsWidth; ++j) v[j] = toF32(b[j]);
    return v;
}

// y[r * ldy + j] = sum_k a[r * K + k] * b[k * ldb + j] for r < R, j < V * kColsWidth.
template <int R, int V, class B_>
inline void rowTile(const float* a, const B_* b, int64_t K, int64_t ldb, float* y, int64_t ldy) {
    Cols s[R][V] = {};
    for (int64_t k = 0; k < K; ++k) {
        const B_* bk = b + k * ldb;
        Cols bv[V];
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) bv[v] = loadCols(bk + v * kColsWidth);
#pragma GCC unroll 6
        for (int r = 0; r < R; ++r) {
            const float ar = a[r * K + k];
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) s[r][v] += ar * bv[v];
        }
    }
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v)
            for (int j = 0; j < kColsWidth; ++j) y[r * ldy + v * kColsWidth + j] = s[r][v][j];
}

// R rows of A (packed, R × K) against all N columns of B.
template <int R, class B_>
void rowsAgainstColumns(const float* a, const B_* b, int64_t K, int64_t ldb, int64_t N, float* y, int64_t ldy) {
    int64_t j = 0;
    for (; j + kCols <= N; j += kCols) rowTile<R, kTileVectors>(a, b + j, K, ldb, y + j, ldy);
    for (; j + kColsWidth <= N; j += kColsWidth) rowTile<R, 1>(a, b + j, K, ldb, y + j, ldy);
    for (int r = 0; r < R; ++r) {
        float* yr = y + r * ldy;
        std::fill(yr + j, yr + N, 0.0f);
        for (int64_t k = 0; k < K; ++k)
            for (int64_t c = j; c < N; ++c) yr[c] += a[r * K + k] * toF32(b[k * ldb + c]);
    }
}

// Rows of A into a packed panel (rows × K, row-major, F32), A(r, k) = a[r * aRow + k * aK]: a
// strided view read where it lies (dyᵀ is dy with its strides swapped), along its shorter stride.
// Packing many rows at once reads dyᵀ's columns a cache line at a time, not a few floats of it.
template <class A>
void packRows(const A* a, int64_t aRow, int64_t aK, int64_t rows, int64_t K, std::vector<float>& panel) {
    panel.resize(size_t(rows * K));
    if (aK <= aRow) {
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t k = 0; k < K; ++k) panel[size_t(r * K + k)] = toF32(a[r * aRow + k * aK]);
    } else {
        for (int64_t k = 0; k < K; ++k)
            for (int64_t r = 0; r < rows; ++r) panel[size_t(r * K + k)] = toF32(a[r * aRow + k * aK]);
    }
}

// [k0, k1): the columns of `rows` rows of A (A(r, k) = a[r * aRow + k * aK]) outside which they
// are all zero. Causal attention's probabilities are 0 past each query's position, and so are
// their gradients (and, transposed, before it): their products add ±0 to sums begun at +0, so
// leaving them out changes no bit (but where b held an inf there, 0·inf would have been NaN: a
// row that reads it is NaN all the same).
template <class A>
std::pair<int64_t, int64_t> nonzeroColumns(const A* a, int64_t aRow, int64_t aK, int rows, int64_t K) {
    // A column's magnitudes' bits ORed together, one branch a column (a float compare per value,
    // with its NaN branch, was half of MatMul's own time outside the tiles).
    const auto zeroColumn = [&](int64_t k) {
        uint32_t bits = 0;
        for (int r = 0; r < rows; ++r) {
            const float v = toF32(a[r * aRow + k * aK]);
            uint32_t u;
            std::memcpy(&u, &v, sizeof u);  // (Emscripten's libc++ has no std::bit_cast)
            bits |= u & 0x7fffffffu;
        }
        return bits == 0;
    };
    // Where a row's columns lie side by side (P, and the scores' gradients, as stored), 16 columns
    // at a time first: one column at a time took about as long as P·V's products over the half kept.
    const auto zeroColumns16 = [&](int64_t k) {
        uint32_t bits[16] = {};
        for (int r = 0; r < rows; ++r)
            for (int j = 0; j < 16; ++j) {
                const float v = toF32(a[r * aRow + k + j]);
                uint32_t u;
                std::memcpy(&u, &v, sizeof u);
                bits[j] |= u & 0x7fffffffu;
            }
        uint32_t any = 0;
        for (int j = 0; j < 16; ++j) any |= bits[j];
        return any == 0;
    };
    int64_t k1 = K, k0 = 0;
    if (aK == 1)
        while (k1 >= 16 && zeroColumns16(k1 - 16)) k1 -= 16;
    while (k1 > 0 && zeroColumn(k1 - 1)) --k1;
    if (aK == 1)
        while (k0 + 16 <= k1 && zeroColumns16(k0)) k0 += 16;
    while (k0 < k1 && zeroColumn(k0)) ++k0;
    return {k0, k1};
}

// y (rows × N, row stride ldy) = P·B for rows ≤ kTileRows packed rows P (rows × K), B row-major
// with row stride ldb.
template <class B_>
void packedRowsTimesColumns(const float* panel, int rows, const B_* b, int64_t ldb, int64_t K, int64_t N, float* y, int64_t ldy) {
    // The last tile of a matrix may hold fewer rows: a tile of their number (one row at a time
    // loaded B's vectors for a single row's sums, and the loads set the pace).
    [&]<int... R>(std::integer_sequence<int, R...>) {
        ((rows == R + 1 ? rowsAgainstColumns<R + 1>(panel, b, K, ldb, N, y, ldy) : void()), ...);
    }(std::make_integer_sequence<int, kTileRows>());
}

// The same from A where it lies; `panel` is scratch the caller keeps between calls.
template <class A, class B_>
void rowsTimesColumns(const A* a, int64_t aRow, int64_t aK, int rows, const B_* b, int64_t ldb, int64_t K, int64_t N, float* y, int64_t ldy,
                      std::vector<float>& panel) {
    packRows(a, aRow, aK, rows, K, panel);
    packedRowsTimesColumns(panel.data(), rows, b, ldb, K, N, y, ldy);
}

}  // namespace llama::ml::detail
