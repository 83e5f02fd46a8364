#include "model/what_if.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace llama {

std::string WhatIf::describe() const {
    std::string s;
    auto add = [&](const std::string& part) { s += (s.empty() ? "" : " ") + part; };
    if (noMask) add("--no-mask");
    if (noKvCache) add("--no-kv-cache");
    if (ropeTheta) add(fmt::format("--rope-theta {}", *ropeTheta));
    if (noRope) add("--no-rope");
    for (auto [layer, head] : ablateHeads) add(fmt::format("--ablate-head {}:{}", layer + 1, head + 1));
    for (int layer : skipLayers) add(fmt::format("--skip-layer {}", layer + 1));
    if (computeDType) add("--compute-dtype " + computeDTypeWord(*computeDType));
    return s;
}

std::vector<int> WhatIf::headsAblatedIn(int layer) const {
    std::vector<int> heads;
    for (auto [l, head] : ablateHeads)
        if (l == layer) heads.push_back(head);
    return heads;
}

void WhatIf::validate(int nLayers, int nHeads) const {
    if (ropeTheta && !(std::isfinite(*ropeTheta) && *ropeTheta > 1))
        throw std::invalid_argument(fmt::format("--rope-theta {}: expected a finite base frequency above 1", *ropeTheta));
    for (auto [layer, head] : ablateHeads)
        if (layer < 0 || layer >= nLayers || head < 0 || head >= nHeads)
            throw std::invalid_argument(fmt::format("--ablate-head {}:{}: this model has layers 1 to {} and heads 1 to {}", layer + 1,
                                                    head + 1, nLayers, nHeads));
    for (int layer : skipLayers)
        if (layer < 0 || layer >= nLayers)
            throw std::invalid_argument(fmt::format("--skip-layer {}: this model has layers 1 to {}", layer + 1, nLayers));
}

DType parseComputeDType(const std::string& text) {
    std::string lower;
    for (char c : text) lower += char(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "bf16") return DType::BF16;
    if (lower == "f32") return DType::F32;
    throw std::invalid_argument(fmt::format("compute dtype '{}': expected bf16 or f32", text));
}

std::string computeDTypeWord(DType dtype) { return dtype == DType::BF16 ? "bf16" : "f32"; }

std::pair<int, int> parseLayerHead(const std::string& text) {
    int layer = 0, head = 0;
    char colon = 0, extra = 0;
    if (std::sscanf(text.c_str(), "%d%c%d%c", &layer, &colon, &head, &extra) != 3 || colon != ':' || layer < 1 || head < 1)
        throw std::invalid_argument(fmt::format("'{}' is not LAYER:HEAD (1-based, e.g. 2:5)", text));
    return {layer - 1, head - 1};
}

}  // namespace llama
