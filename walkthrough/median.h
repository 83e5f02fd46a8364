#pragma once
// The median of repeated measurements (0 when there are none): what every bench figure reports.
#include <algorithm>
#include <vector>

namespace llama::cli {

inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace llama::cli
