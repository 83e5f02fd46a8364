#include "trace/trace_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
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
        // The whole part must be "A" or "A-B": from_chars reports overflow where sscanf wraps.
        auto number = [](std::string_view digits, int& value) {
            const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
            return !digits.empty() && error == std::errc() && end == digits.data() + digits.size();
        };
        const size_t dash = part.find('-', 1);
        int first = 0, last = 0;
        const bool read = dash == std::string::npos ? number(part, first) && number(part, last)
                                                    : number(std::string_view(part).substr(0, dash), first) &&
                                                          number(std::string_view(part).substr(dash + 1), last);
        if (!read || first < 1 || last < first || last > nLayers)
            throw std::invalid_argument(fmt::format("attention layers: '{}' is not a layer or range within 1-{} (e.g. 1,3-5, all, none)",
                                                    part, nLayers));
        for (int l = first; l <= last; ++l) layers.insert(l - 1);
        begin = end + 1;
    }
    return layers;
}

}  // namespace llama
