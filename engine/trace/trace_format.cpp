#include "trace/trace_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace llama {

TraceOptions TraceOptions::metadataOnly() {
    TraceOptions o;
    o.summaries = false;
    o.attentionLayers = std::set<int>{};
    o.maxPositions = 0;
    o.topK = 0;
    o.residual = false;
    o.lensTopK = 0;
    return o;
}

std::optional<std::set<int>> parseLayerSelection(const std::string& text, int nLayers) {
    if (text == "all") return std::nullopt;
    std::set<int> layers;
    if (text == "none") return layers;
    size_t begin = 0;
    while (begin <= text.size()) {
        size_t end = std::min(text.find(',', begin), text.size());
        const std::string part = text.substr(begin, end - begin);
        int first = 0, last = 0;
        char dash = 0;
        int fields = std::sscanf(part.c_str(), "%d%c%d", &first, &dash, &last);
        if (fields == 1) last = first;
        if (!(fields == 1 || (fields == 3 && dash == '-')) || first < 1 || last < first || last > nLayers)
            throw std::invalid_argument(fmt::format("attention layers: '{}' is not a layer or range within 1-{} (e.g. 1,3-5, all, none)",
                                                    part, nLayers));
        for (int l = first; l <= last; ++l) layers.insert(l - 1);
        begin = end + 1;
    }
    return layers;
}

}  // namespace llama
