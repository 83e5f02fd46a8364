#include "model/model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>

namespace llama {

const Tensor& Model::tensor(const std::string& name, const Shape& expected) const {
    for (const auto& [n, t] : tensors) {
        if (n != name) continue;
        if (t.shape() != expected)
            throw std::runtime_error(path + ": tensor '" + name + "' has " + t.shapeStr() + ", expected shape(" +
                                     shapeToString(expected) + ") from the model args");
        return t;
    }
    throw std::runtime_error(path + ": tensor '" + name + "' is missing");
}

size_t Model::totalBytes() const {
    size_t bytes = 0;
    for (const auto& [n, t] : tensors) bytes += t.byteSize();
    return bytes;
}

namespace {
// The element (or block, for quantized types) of `t` that is not finite, or -1: its bits are
// tested (an exponent of all ones), which the compiler vectorises over the whole file.
int64_t firstNonFinite(const Tensor& t) {
    const auto* bytes = t.data<uint8_t>();
    auto scan16 = [&](size_t stride, size_t offset, uint16_t exponent) -> int64_t {
        const size_t n = dtypeBytes(t.dtype(), t.numel()) / stride;
        for (size_t i = 0; i < n; ++i) {
            uint16_t v;
            std::memcpy(&v, bytes + i * stride + offset, 2);
            if ((v & exponent) == exponent) return int64_t(i);
        }
        return -1;
    };
    switch (t.dtype()) {
        case DType::F32: {
            const int64_t n = t.numel();
            for (int64_t i = 0; i < n; ++i) {
                uint32_t v;
                std::memcpy(&v, bytes + i * 4, 4);
                if ((v & 0x7F800000u) == 0x7F800000u) return i;
            }
            return -1;
        }
        case DType::BF16: return scan16(2, 0, 0x7F80);
        case DType::F16: return scan16(2, 0, 0x7C00);
        case DType::Q8_0:
        case DType::Q4_0: return scan16(dtypeBlockBytes(t.dtype()), 0, 0x7C00);  // the block's f16 scale
        case DType::Q4_K: {
            const int64_t d = scan16(144, 0, 0x7C00), dmin = scan16(144, 2, 0x7C00);
            return d < 0 ? dmin : dmin < 0 ? d : std::min(d, dmin);
        }
        case DType::Q6_K: return scan16(210, 208, 0x7C00);
        default: return -1;
    }
}
}  // namespace

void Model::checkWeights() const {
    std::vector<std::string> beyond;
    for (const auto& [name, t] : tensors) {
        if (name.starts_with("layers.")) {
            const int layer = std::atoi(name.c_str() + 7);
            if (layer >= args.n_layers) beyond.push_back(name);
        }
    }
    if (!beyond.empty())
        throw std::runtime_error(fmt::format("{}: the model has {} layers, but {} tensors belong to later ones ({}{}): the layer count in the "
                                             "file's settings is wrong, or the file holds another model",
                                             path, args.n_layers, beyond.size(), fmt::join(beyond.begin(), beyond.begin() + std::min<size_t>(beyond.size(), 3), ", "),
                                             beyond.size() > 3 ? ", ..." : ""));
    for (const auto& [name, t] : tensors) {
        if (!t.hasData()) continue;
        if (const int64_t at = firstNonFinite(t); at >= 0)
            throw std::runtime_error(fmt::format("{}: tensor '{}' ({}) holds a NaN or infinity at {} {}: the file is damaged", path, name,
                                                 dtypeName(t.dtype()), isQuantized(t.dtype()) ? "the scale of block" : "element", at));
    }
}

std::string Model::weightsDType() const {
    std::map<std::string, size_t> count;
    for (const auto& [n, t] : tensors) count[dtypeName(t.dtype())]++;
    if (count.size() == 1) return count.begin()->first;
    return count.empty() ? "none" : "mixed";
}

}  // namespace llama
