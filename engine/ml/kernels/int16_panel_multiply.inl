// The int16 panels' multiply (kernel_set.h, KernelSet::panel), written once for every path that
// has one: the including file defines kLanes and kPanelRows, the vector types VecI (int32 lanes)
// and VecF (float lanes) and their operations (loadI, broadcastPair, addPairProducts, zeroI,
// zeroF, toF, loadF, splatF, addF, subF, mulF, storeF: one instruction each, none fused).
// Internal linkage (x86_kernels.inl says why).

namespace llama::ml::kernels {

namespace {

// blockTerm (block_terms.inl) for kLanes x rows at once, one a lane.
inline VecF blockTerms(VecF dx, float dw, VecI s) { return mulF(dx, mulF(splatF(dw), toF(s))); }
inline VecF blockTerms(VecF dx, float d, VecI s, float dmin, VecI m) {
    return mulF(dx, subF(mulF(splatF(d), toF(s)), mulF(splatF(dmin), toF(m))));
}

// NR weight rows (accumulators in registers) against one group of x rows, blocks of SIZE.
template <int NR, int SIZE, bool MINS>
void panelN(const Int16Rows& w, int64_t r0, int64_t k, const PackedX& x, float* out) {
    const int64_t blocks = k / SIZE;
    VecF acc[NR];
    for (int r = 0; r < NR; ++r) acc[r] = zeroF();
    for (int64_t b = 0; b < blocks; ++b) {
        VecI sum[NR];
        for (int r = 0; r < NR; ++r) sum[r] = zeroI();
        const int16_t* xq = x.q + b * SIZE * kLanes;  // SIZE / 2 pairs of kLanes x 2 values
        const int16_t* wq = w.q + r0 * k + b * SIZE;
        for (int i = 0; i < SIZE; i += 2) {
            const VecI xv = loadI(xq + i * kLanes);
            for (int r = 0; r < NR; ++r) sum[r] = addPairProducts(sum[r], broadcastPair(wq + r * k + i), xv);
        }
        const VecF dx = loadF(x.d + b * kLanes);
        if constexpr (MINS) {  // Q4_K: the minimums' sum, sum_j mins[j] * (x's sum over sub-block j)
            VecI mins[NR];
            for (int r = 0; r < NR; ++r) mins[r] = zeroI();
            for (int j = 0; j < 8; j += 2) {
                const VecI xs = loadI(x.sums + (b * 4 + j / 2) * 2 * kLanes);
                for (int r = 0; r < NR; ++r) mins[r] = addPairProducts(mins[r], broadcastPair(w.mins + ((r0 + r) * blocks + b) * 8 + j), xs);
            }
            for (int r = 0; r < NR; ++r) {
                const int64_t at = (r0 + r) * blocks + b;
                acc[r] = addF(acc[r], blockTerms(dx, w.d[at], sum[r], w.dmin[at], mins[r]));
            }
        } else {
            for (int r = 0; r < NR; ++r) acc[r] = addF(acc[r], blockTerms(dx, w.d[(r0 + r) * blocks + b], sum[r]));
        }
    }
    for (int r = 0; r < NR; ++r) storeF(out + r * kLanes, acc[r]);
}

constexpr int atMostPanelRows(int n) { return n < kPanelRows ? n : kPanelRows; }

template <int SIZE, bool MINS>
void panelRows(const Int16Rows& w, int64_t r0, int nr, int64_t k, const PackedX& x, float* out) {
    static_assert(kPanelRows <= 8 && kPanelRows <= kMaxPanelRows);
    switch (nr) {
        case 1: return panelN<1, SIZE, MINS>(w, r0, k, x, out);
        case 2: return panelN<2, SIZE, MINS>(w, r0, k, x, out);
        case 3: return panelN<3, SIZE, MINS>(w, r0, k, x, out);
        case 4: return panelN<4, SIZE, MINS>(w, r0, k, x, out);
        case 5: return panelN<atMostPanelRows(5), SIZE, MINS>(w, r0, k, x, out);
        case 6: return panelN<atMostPanelRows(6), SIZE, MINS>(w, r0, k, x, out);
        case 7: return panelN<atMostPanelRows(7), SIZE, MINS>(w, r0, k, x, out);
        default: return panelN<kPanelRows, SIZE, MINS>(w, r0, k, x, out);
    }
}

void panel(BlockFormat f, const Int16Rows& w, int64_t r0, int nr, int64_t k, const PackedX& x, float* out) {
    switch (f) {
        case BlockFormat::Q8_0:
        case BlockFormat::Q4_0: return panelRows<32, false>(w, r0, nr, k, x, out);
        case BlockFormat::Q4_K: return panelRows<256, true>(w, r0, nr, k, x, out);
        case BlockFormat::Q6_K: return panelRows<256, false>(w, r0, nr, k, x, out);
    }
}

}  // namespace
}  // namespace llama::ml::kernels
