#include "ml/non_finite.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "ml/ops.h"

namespace llama {

namespace {
// The first of n values (each `Bits` wide, `stride` bytes apart from `offset`) whose exponent is all
// ones: NaN or an infinity, -infinity (the sign set, no mantissa) allowed on request. A chunk is
// tested without a branch per value, which vectorizes (a 1 GB BF16 scan 0.35 s before, 0.06 s
// after, one core); only a chunk that holds one is searched.
template <typename Bits>
int64_t firstExponentAllOnes(const uint8_t* bytes, size_t n, size_t stride, size_t offset, Bits exponent, bool negativeInfinityAllowed) {
    const Bits negativeInfinity = Bits(Bits(1) << (8 * sizeof(Bits) - 1) | exponent);
    // Instantiated apart for packed values: a stride the compiler knows is what lets it vectorize.
    auto scan = [&](auto packed) -> int64_t {
        const size_t step = packed ? sizeof(Bits) : stride, first = packed ? 0 : offset;
        auto at = [&](size_t i) {
            Bits v;
            std::memcpy(&v, bytes + i * step + first, sizeof(Bits));
            return v;
        };
        constexpr size_t chunk = 256;
        for (size_t start = 0; start < n; start += chunk) {
            const size_t end = std::min(n, start + chunk);
            unsigned hits = 0;
            for (size_t i = start; i < end; ++i) hits |= (at(i) & exponent) == exponent;
            if (!hits) continue;
            for (size_t i = start; i < end; ++i)
                if ((at(i) & exponent) == exponent && !(negativeInfinityAllowed && at(i) == negativeInfinity)) return int64_t(i);
        }
        return -1;
    };
    return stride == sizeof(Bits) && offset == 0 ? scan(std::true_type{}) : scan(std::false_type{});
}
}  // namespace

std::optional<int64_t> firstNonFinite(const Tensor& t, bool negativeInfinityAllowed) {
    if (!t.hasData()) return std::nullopt;
    if (!t.isContiguous()) return firstNonFinite(ml::Contiguous(t), negativeInfinityAllowed);
    const auto* bytes = t.data<uint8_t>();
    auto scan16 = [&](size_t stride, size_t offset, uint16_t exponent) {
        return firstExponentAllOnes<uint16_t>(bytes, dtypeBytes(t.dtype(), t.numel()) / stride, stride, offset, exponent, negativeInfinityAllowed);
    };
    int64_t at = -1;
    switch (t.dtype()) {
        case DType::F32: at = firstExponentAllOnes<uint32_t>(bytes, size_t(t.numel()), 4, 0, 0x7F800000u, negativeInfinityAllowed); break;
        case DType::BF16: at = scan16(2, 0, 0x7F80); break;
        case DType::F16: at = scan16(2, 0, 0x7C00); break;
        case DType::Q8_0:
        case DType::Q4_0: at = scan16(dtypeBlockBytes(t.dtype()), 0, 0x7C00); break;  // the block's f16 scale
        case DType::Q4_K: {
            const int64_t d = scan16(144, 0, 0x7C00), dmin = scan16(144, 2, 0x7C00);
            at = d < 0 ? dmin : dmin < 0 ? d : std::min(d, dmin);
            break;
        }
        case DType::Q6_K: at = scan16(210, 208, 0x7C00); break;
        default: break;
    }
    return at < 0 ? std::nullopt : std::optional<int64_t>(at);
}

}  // namespace llama
