#include "model/steering.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "tensor/bfloat16.h"

namespace llama {

const Tensor* Steering::directionFor(int block) const {
    auto it = directions.find(block);
    return it == directions.end() ? nullptr : &it->second;
}

std::string Steering::describe() const {
    std::string s;
    for (const auto& f : files) s += (s.empty() ? "" : " ") + fmt::format("--control-vector {}:{}", f.path, f.scale);
    if (layers) s += fmt::format(" --control-vector-layers {}-{}", layers->first, layers->second);
    return s;
}

void Steering::validate(int modelDim, int nLayers) const {
    const std::string what = files.size() == 1 ? files[0].path : "the control vectors";
    if (dim != modelDim)
        throw std::invalid_argument(fmt::format("{}: its directions have {} floats, but the model's dim is {}", what, dim, modelDim));
    for (const auto& [block, direction] : directions)
        if (block >= nLayers)
            throw std::invalid_argument(fmt::format("{}: direction.{} steers layer {}, but the model has {} layers", what, block, block + 1, nLayers));
    if (layers && layers->second > nLayers)
        throw std::invalid_argument(fmt::format("--control-vector-layers {}-{}: the model has {} layers", layers->first, layers->second, nLayers));
}

ControlVectorFile parseControlVectorArgument(const std::string& text) {
    ControlVectorFile f{text, 1.0f};
    if (auto colon = text.rfind(':'); colon != std::string::npos && colon + 1 < text.size()) {
        const std::string number = text.substr(colon + 1);
        char* end = nullptr;
        const double scale = std::strtod(number.c_str(), &end);
        if (end && *end == '\0') {
            if (!std::isfinite(scale) || std::fabs(scale) > 1e4)
                throw std::invalid_argument(fmt::format("the scale in '{}' must be a finite number from -10000 to 10000", text));
            f = {text.substr(0, colon), float(scale)};
        }
    }
    if (f.path.empty()) throw std::invalid_argument(fmt::format("'{}': expected FILE or FILE:SCALE", text));
    return f;
}

std::string steeringNorms(const Tensor& residual, const Tensor& direction) {
    if (!residual.hasData() || !direction.hasData()) return "norms not computed in a dry run";
    auto value = [](const Tensor& t, int64_t i) { return t.dtype() == DType::BF16 ? float(t.data<BFloat16>()[i]) : t.data<float>()[i]; };
    const int64_t dim = direction.numel();
    double d2 = 0;
    for (int64_t i = 0; i < dim; ++i) d2 += double(value(direction, i)) * value(direction, i);
    const int64_t rows = residual.numel() / dim;
    double rowNorms = 0;
    for (int64_t r = 0; r < rows; ++r) {
        double s = 0;
        for (int64_t i = 0; i < dim; ++i) s += double(value(residual, r * dim + i)) * value(residual, r * dim + i);
        rowNorms += std::sqrt(s);
    }
    const double residualNorm = rowNorms / double(std::max<int64_t>(rows, 1));
    return fmt::format("direction norm {:.3g}, residual norm {:.3g} per position, {:.1f}%", std::sqrt(d2), residualNorm,
                       residualNorm > 0 ? 100.0 * std::sqrt(d2) / residualNorm : 0.0);
}

}  // namespace llama
