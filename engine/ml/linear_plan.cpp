#include "ml/linear_plan.h"

namespace llama::ml {

using detail::kBF16BlockRows;
using detail::kBlockRows;
using detail::kQuantBlockRows;

LinearPlan::LinearPlan(DType w, const kernels::KernelSet& set)
    // With fewer x rows than one tile, padding wastes more than the blocking saves (measured).
    : weights(w), kernels(&set), manyRowsFrom(detail::kTileX) {
    auto each = [&](LinearStep one, LinearStep few, LinearStep many) {  // the same step for F32 and BF16 x
        const LinearStep byBucket[3] = {one, few, many};
        for (int b = 0; b < 3; ++b) steps[b][0] = steps[b][1] = byBucket[b];
    };
    const bool integer = w == DType::Q8_0 || w == DType::Q4_0 || w == DType::Q4_K || w == DType::Q6_K;
    if (integer && set.dotQ8_0) {
        switch (w) {
            case DType::Q8_0: format = kernels::BlockFormat::Q8_0; dot32 = set.dotQ8_0; break;
            case DType::Q4_0: format = kernels::BlockFormat::Q4_0; dot32 = set.dotQ4_0; break;
            case DType::Q4_K: format = kernels::BlockFormat::Q4_K; dot256 = set.dotQ4_K; break;
            default: format = kernels::BlockFormat::Q6_K; dot256 = set.dotQ6_K; break;
        }
        // One row streams each weight row once; from two, a block of weight rows stays in L1
        // while the x rows pass over it; from more than `lanes` rows (where the path has panels)
        // the panels use each weight load for a vector of x rows. At exactly `lanes` rows (a
        // decode step of 8 sequences on AVX2) unpacking the weights into panels cost more than it
        // saved: the dots ran TinyLlama-shaped Q4_K's B = 8 decode at 48.5-50.0 tok/s, the panels
        // at 46.2-47.1.
        const LinearStep dots{LinearRoute::QuantizedDots, XForm::Quantized, kQuantBlockRows};
        LinearStep many = dots;
        if (set.lanes) {
            manyRowsFrom = set.lanes + 1;
            if (set.bytePanel && dot32)
                many = {LinearRoute::BytePanels, XForm::PackedBytes, kQuantBlockRows};
            else if (set.smallValuePanel && format != kernels::BlockFormat::Q8_0)
                many = {LinearRoute::SmallValuePanels, XForm::PackedSigned, kQuantBlockRows};
            else
                many = {LinearRoute::Int16Panels, XForm::Packed, kQuantBlockRows};
        }
        each({LinearRoute::QuantizedDots, XForm::Quantized, 1}, dots, many);
        return;
    }
    const LinearStep stream{LinearRoute::Stream, XForm::F32, 1}, tiles{LinearRoute::Tiles, XForm::F32Padded, kBlockRows};
    each(stream, stream, tiles);
    if (w != DType::BF16 || !set.dotBF16) return;
    // BF16 weights: F32 x goes to the dot kernel, then to F32 tiles. BF16 x stays as stored: one
    // row with the decode kernel, which streams weights fastest; from two (a batch's decode step,
    // prefill) the path's BF16 tiles read each weight once for all rows, where it has them.
    const LinearStep dots{LinearRoute::BF16Dots, XForm::F32, 1};
    each(dots, dots, tiles);
    steps[OneRow][1] = {LinearRoute::BF16Pair, XForm::AsStored, 1};
    if (set.bf16Rows)
        steps[FewRows][1] = steps[ManyRows][1] = {LinearRoute::BF16Tiles, set.prepareRows ? XForm::Prepared : XForm::AsStored, kBF16BlockRows};
}

}  // namespace llama::ml
