#include "trace/tensor_stats.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace llama {

TensorStats computeStats(const Tensor& t, int firstCount) {
    TensorStats s;
    if (!t.hasData() || t.numel() == 0) return s;
    double sum = 0;
    int64_t finite = 0;
    float mn = std::numeric_limits<float>::infinity(), mx = -mn;
    for (int64_t i = 0, n = t.numel(); i < n; ++i) {
        float v = t.floatAt(i);
        if (i < firstCount) s.first.push_back(v);
        if (std::isinf(v) && v < 0) s.negInf++;
        if (!std::isfinite(v)) continue;
        mn = std::min(mn, v);
        mx = std::max(mx, v);
        sum += v;
        finite++;
    }
    if (finite) {
        s.min = mn;
        s.max = mx;
        s.mean = float(sum / finite);
    }
    return s;
}

std::string formatStats(const TensorStats& s) {
    std::string first;
    for (float v : s.first) first += fmt::format("{}{:.4g}", first.empty() ? "" : ", ", v);
    std::string text = fmt::format("min {:.4g} max {:.4g} mean {:.4g} first [{}]", s.min, s.max, s.mean, first);
    if (s.negInf) text += fmt::format(" ({} x -inf)", s.negInf);
    return text;
}

}  // namespace llama
