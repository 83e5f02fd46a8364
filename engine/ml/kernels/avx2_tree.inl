// The canonical tree's last steps (hsum: the high 128 bits onto the low, lanes 0 + 2 and 1 + 3,
// then lane 0 + lane 1) for eight 8-lane vectors at once, lane by lane the same additions with the
// same operands in the same order. A tile's pairs halved one at a time took 13 instructions each
// (on the bundled model, 27% of the tile's samples fell outside its loops). The F32 tile of
// ml/dot_kernels.h, done the same way, ran a stories260K-shaped prefill 2-4% slower (its k = 64
// rows are bound elsewhere), so it keeps its pair-at-a-time tree.

// [a_j + a_j+4 | b_j + b_j+4], j < 4: hsum's first step for two vectors.
inline __m256 halveLanes(__m256 a, __m256 b) {
    return _mm256_add_ps(_mm256_permute2f128_ps(a, b, 0x20), _mm256_permute2f128_ps(a, b, 0x31));
}

// [hsum(a), hsum(c), hsum(e), hsum(g), hsum(b), hsum(d), hsum(f), hsum(h)].
inline __m256 hsum8(__m256 a, __m256 b, __m256 c, __m256 d, __m256 e, __m256 f, __m256 g, __m256 h) {
    const __m256 ab = halveLanes(a, b), cd = halveLanes(c, d), ef = halveLanes(e, f), gh = halveLanes(g, h);
    // Lanes 0 + 2 and 1 + 3 of each half: [a a c c | b b d d] and [e e g g | f f h h].
    const __m256 acbd = _mm256_add_ps(_mm256_shuffle_ps(ab, cd, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(ab, cd, _MM_SHUFFLE(3, 2, 3, 2)));
    const __m256 egfh = _mm256_add_ps(_mm256_shuffle_ps(ef, gh, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(ef, gh, _MM_SHUFFLE(3, 2, 3, 2)));
    // Lane 0 + lane 1.
    return _mm256_add_ps(_mm256_shuffle_ps(acbd, egfh, _MM_SHUFFLE(2, 0, 2, 0)), _mm256_shuffle_ps(acbd, egfh, _MM_SHUFFLE(3, 1, 3, 1)));
}
