#include "model/what_if.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
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
    if (steering) add(steering->describe());
    if (patch) add(patch->describe());
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
        throw std::invalid_argument(fmt::format("--rope-theta: a base frequency above 1, got {}", *ropeTheta));
    for (auto [layer, head] : ablateHeads)
        if (layer < 0 || layer >= nLayers || head < 0 || head >= nHeads)
            throw std::invalid_argument(fmt::format("--ablate-head: a LAYER:HEAD with a layer from 1 to {} and a head from 1 to {}, got {}:{}",
                                                    nLayers, nHeads, layer + 1, head + 1));
    for (int layer : skipLayers)
        if (layer < 0 || layer >= nLayers)
            throw std::invalid_argument(fmt::format("--skip-layer: a layer from 1 to {}, got {}", nLayers, layer + 1));
}

DType parseComputeDType(const std::string& text) {
    std::string lower;
    for (char c : text) lower += char(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "bf16") return DType::BF16;
    if (lower == "f32") return DType::F32;
    throw std::invalid_argument(fmt::format("compute dtype '{}': expected bf16 or f32", text));
}

std::string computeDTypeWord(DType dtype) { return dtype == DType::BF16 ? "bf16" : "f32"; }

void WhatIf::requireOneSequence(const std::string& run) const {
    if (!any()) return;
    throw std::invalid_argument(fmt::format(
        "{}: no what-if experiment ({}): they change the walkthrough's loop over one sequence, whose token at position p is stored "
        "in cache row p; a batch's tokens belong to several sequences, at positions of their own in the cells find_slot chose, "
        "so a patched position, a mask switched off or a skipped cache would reach other sequences' rows",
        run, describe()));
}

}  // namespace llama
