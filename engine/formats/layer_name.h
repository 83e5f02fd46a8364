#pragma once
// "PREFIX<digits>.REST" -> {"<digits>", "REST"}: the layer index and the tensor's name within the
// layer ("blk.3.attn_q.weight" with prefix "blk."). Plain scanning: names come from model files,
// where std::regex's per-character recursion would overflow the stack on a 30 KB name.
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace llama {

inline std::optional<std::pair<std::string, std::string>> splitLayerName(std::string_view name, std::string_view prefix) {
    if (!name.starts_with(prefix)) return std::nullopt;
    const size_t digitsEnd = name.find_first_not_of("0123456789", prefix.size());
    if (digitsEnd == prefix.size() || digitsEnd == std::string_view::npos || name[digitsEnd] != '.' || digitsEnd + 1 == name.size())
        return std::nullopt;
    return std::pair{std::string(name.substr(prefix.size(), digitsEnd - prefix.size())), std::string(name.substr(digitsEnd + 1))};
}

}  // namespace llama
