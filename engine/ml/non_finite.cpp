#include "ml/non_finite.h"

#include <algorithm>
#include <cstring>

#include "ml/ops.h"

namespace llama {

std::optional<int64_t> firstNonFinite(const Tensor& t, bool negativeInfinityAllowed) {
    if (!t.hasData()) return std::nullopt;
    if (!t.isContiguous()) return firstNonFinite(ml::Contiguous(t), negativeInfinityAllowed);
    const auto* bytes = t.data<uint8_t>();
    // An exponent of all ones is NaN or an infinity; -infinity is that with the sign set and no mantissa.
    auto scan16 = [&](size_t stride, size_t offset, uint16_t exponent) -> int64_t {
        const uint16_t negativeInfinity = uint16_t(0x8000u | exponent);
        const size_t n = dtypeBytes(t.dtype(), t.numel()) / stride;
        for (size_t i = 0; i < n; ++i) {
            uint16_t v;
            std::memcpy(&v, bytes + i * stride + offset, 2);
            if ((v & exponent) == exponent && !(negativeInfinityAllowed && v == negativeInfinity)) return int64_t(i);
        }
        return -1;
    };
    int64_t at = -1;
    switch (t.dtype()) {
        case DType::F32: {
            const int64_t n = t.numel();
            for (int64_t i = 0; i < n && at < 0; ++i) {
                uint32_t v;
                std::memcpy(&v, bytes + i * 4, 4);
                if ((v & 0x7F800000u) == 0x7F800000u && !(negativeInfinityAllowed && v == 0xFF800000u)) at = i;
            }
            break;
        }
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
