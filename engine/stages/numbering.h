#pragma once
// How a person reads layer and head numbers: from 1, as the debug log counts them
// ("layer: 2 / 8"). Code indexes layers and heads from 0; every label a learner reads (the
// stepper, `diff`, the viewer, exports) is made here, so no front end counts differently.
#include <optional>
#include <string>
#include <string_view>

namespace llama {

inline int layerNumber(int layerIndex) { return layerIndex + 1; }
inline int headNumber(int headIndex) { return headIndex + 1; }

std::string layerLabel(int layerIndex);               // "layer 1"; "outside the layers" for -1
std::string layerLabel(int layerIndex, int nLayers);  // "layer 1/8"
std::string layerAxisLabel(int layerIndex);           // "L1", a compact axis or file-name label
std::string headLabel(int headIndex);                 // "head 1"

// A layer or head number as a person types it ("1" is the first) to a 0-based index; nullopt
// when it is not a whole number >= 1. The model's limit is the caller's to check.
std::optional<int> indexFromNumber(std::string_view number);

}  // namespace llama
