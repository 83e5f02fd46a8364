// The float step of the quantized kernels (kernel_set.h: one block's term from its exact integer
// sums), and the loop with which the SIMD decode kernels reach it. Included by every kernel file
// and compiled with its flags; internal linkage (x86_kernels.inl says why kernel files share no
// inline code).
#include <cstdint>

#include "ml/kernels/kernel_set.h"

namespace llama::ml::kernels {

namespace {

// Q8_0, Q4_0, Q6_K.
inline float blockTerm(float dx, float dw, int32_t s) { return dx * (dw * float(s)); }
// Q4_K: m is the minimums' sum.
inline float blockTerm(float dx, float d, int32_t s, float dmin, int32_t m) { return dx * (d * float(s) - dmin * float(m)); }

// Decode on the SIMD paths. A block's integer sum with one x row comes as a vector of int32 lanes
// whose total is the sum; four vectors are reduced together (Ops::pair adds two vectors' lanes
// in pairs, Ops::totals finishes two pairs into the four totals): on x86 six instructions for
// four vectors, where one vector on its own takes six. Then each row's terms are added to its sum
// one block at a time, in order.
//   sums(b, v): v[i][s] for weight block b and x row s < NX, i < PER (Q4_K has two vectors a
//               block, s and m; the others one); a template lambda, NX from v's type
//   term(b, s, t): block b's term for x row s from its PER totals t
// NX is a template parameter so that the vectors stay in registers.
template <class Ops, int NX, int PER, class Sums, class Term>
void decodeBlocksN(int64_t blocks, float* out, Sums& sums, Term& term) {
    using V = typename Ops::V;
    constexpr int kPairBlocks = 2 / PER;  // blocks whose vectors make one pair
    float acc[NX];
    for (int s = 0; s < NX; ++s) acc[s] = 0.0f;
    for (int64_t b0 = 0; b0 < blocks; b0 += 2 * kPairBlocks) {
        // Each pair is reduced as soon as it is complete, so at most two vectors a row wait.
        V pairs[2][NX];
        for (int p = 0; p < 2; ++p) {
            V v[2][NX];
            for (int j = 0; j < kPairBlocks; ++j) {
                const int64_t b = b0 + p * kPairBlocks + j;
                if (b < blocks) {
                    sums(b, v + PER * j);
                } else {  // past the last block: sums of zero, whose terms are not added
                    for (int i = 0; i < PER; ++i)
                        for (int s = 0; s < NX; ++s) v[PER * j + i][s] = Ops::zero();
                }
            }
            for (int s = 0; s < NX; ++s) pairs[p][s] = Ops::pair(v[0][s], v[1][s]);
        }
        for (int s = 0; s < NX; ++s) {
            int32_t t[4];
            Ops::totals(pairs[0][s], pairs[1][s], t);
            for (int j = 0; j < 2 * kPairBlocks && b0 + j < blocks; ++j) acc[s] += term(b0 + j, s, t + PER * j);
        }
    }
    for (int s = 0; s < NX; ++s) out[s] = acc[s];
}

template <class Ops, int PER, class Sums, class Term>
void decodeBlocks(int nx, int64_t blocks, float* out, Sums&& sums, Term&& term) {
    static_assert(kMaxRows == 4);
    switch (nx) {
        case 1: return decodeBlocksN<Ops, 1, PER>(blocks, out, sums, term);
        case 2: return decodeBlocksN<Ops, 2, PER>(blocks, out, sums, term);
        case 3: return decodeBlocksN<Ops, 3, PER>(blocks, out, sums, term);
        default: return decodeBlocksN<Ops, 4, PER>(blocks, out, sums, term);
    }
}

}  // namespace
}  // namespace llama::ml::kernels
