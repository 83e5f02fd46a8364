#pragma once
// Value -> colour for heatmaps. Signed data gets a symmetric diverging scale (blue - white -
// red around zero) so the sign is readable at a glance; non-negative data (probabilities) a
// sequential dark-to-bright ramp; -inf (the mask) its own colour outside both ramps.
#include <cstdint>
#include <span>

namespace llama::viewer {

struct Rgb {
    uint8_t r, g, b;
    bool operator==(const Rgb&) const = default;
};

struct ColourScale {
    float lo = 0, hi = 1;
    bool diverging = false;  // lo == -hi
};

inline constexpr Rgb kNegInfColour{40, 40, 48};
inline constexpr Rgb kPosInfColour{255, 0, 255};

// From the finite values: diverging when they have both signs.
ColourScale scaleFor(std::span<const float> values);
Rgb colourFor(float value, const ColourScale& scale);
// t in [0, 1] along the ramp (for legends).
Rgb rampColour(float t, bool diverging);

}  // namespace llama::viewer
