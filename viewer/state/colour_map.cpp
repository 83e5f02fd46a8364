#include "state/colour_map.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace llama::viewer {

namespace {
Rgb lerp(Rgb a, Rgb b, float t) {
    auto mix = [t](uint8_t x, uint8_t y) { return uint8_t(std::lround(x + (y - x) * t)); };
    return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

template <size_t N>
Rgb along(const std::array<Rgb, N>& stops, float t) {
    t = std::clamp(t, 0.0f, 1.0f) * (N - 1);
    size_t i = std::min(size_t(t), N - 2);
    return lerp(stops[i], stops[i + 1], t - float(i));
}

// Viridis' key colours: perceptually ordered and readable in greyscale.
constexpr std::array<Rgb, 5> kSequential{{{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
// Blue for negative, white for zero, red for positive.
constexpr std::array<Rgb, 3> kDiverging{{{33, 102, 172}, {247, 247, 247}, {178, 24, 43}}};
}  // namespace

ColourScale scaleFor(std::span<const float> values) {
    float lo = INFINITY, hi = -INFINITY;
    for (float v : values)
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    if (lo > hi) return {};
    if (lo < 0 && hi > 0) {
        float m = std::max(-lo, hi);
        return {-m, m, true};
    }
    if (lo == hi) return {lo, lo + 1, false};
    return {lo, hi, false};
}

Rgb rampColour(float t, bool diverging) { return diverging ? along(kDiverging, t) : along(kSequential, t); }

Rgb colourFor(float v, const ColourScale& s) {
    if (std::isnan(v)) return kPosInfColour;
    if (std::isinf(v)) return v < 0 ? kNegInfColour : kPosInfColour;
    return rampColour((v - s.lo) / (s.hi - s.lo), s.diverging);
}

}  // namespace llama::viewer
