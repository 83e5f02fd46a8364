#include "stages/numbering.h"

#include <fmt/format.h>

#include <charconv>

namespace llama {

std::string layerLabel(int layerIndex) {
    return layerIndex < 0 ? std::string("outside the layers") : fmt::format("layer {}", layerNumber(layerIndex));
}

std::string layerLabel(int layerIndex, int nLayers) {
    return layerIndex < 0 ? std::string("outside the layers") : fmt::format("layer {}/{}", layerNumber(layerIndex), nLayers);
}

std::string layerAxisLabel(int layerIndex) { return fmt::format("L{}", layerNumber(layerIndex)); }

std::string headLabel(int headIndex) { return fmt::format("head {}", headNumber(headIndex)); }

std::optional<int> indexFromNumber(std::string_view number) {
    int n = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
    if (ec != std::errc() || end != number.data() + number.size() || n < 1) return std::nullopt;
    return n - 1;
}

}  // namespace llama
