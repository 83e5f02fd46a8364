#include "model/model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>

#include "ml/non_finite.h"

namespace llama {

const Tensor& Model::tensor(const std::string& name, const Shape& expected) const {
    for (const auto& [n, t] : tensors) {
        if (n != name) continue;
        if (t.shape() != expected)
            throw std::runtime_error(path + ": tensor '" + name + "' has " + t.shapeStr() + ", expected shape(" +
                                     shapeToString(expected) + ") from the model args");
        return t;
    }
    throw std::runtime_error(path + ": tensor '" + name + "' is missing");
}

size_t Model::totalBytes() const {
    size_t bytes = 0;
    for (const auto& [n, t] : tensors) bytes += t.byteSize();
    return bytes;
}


void Model::checkWeights() const {
    std::vector<std::string> beyond;
    for (const auto& [name, t] : tensors) {
        if (name.starts_with("layers.")) {
            const int layer = std::atoi(name.c_str() + 7);
            if (layer >= args.n_layers) beyond.push_back(name);
        }
    }
    if (!beyond.empty())
        throw std::runtime_error(fmt::format("{}: the model has {} layers, but {} tensors belong to later ones ({}{}): the layer count in the "
                                             "file's settings is wrong, or the file holds another model",
                                             path, args.n_layers, beyond.size(), fmt::join(beyond.begin(), beyond.begin() + std::min<size_t>(beyond.size(), 3), ", "),
                                             beyond.size() > 3 ? ", ..." : ""));
    for (const auto& [name, t] : tensors) {
        if (!t.hasData()) continue;
        if (const auto at = firstNonFinite(t))
            throw std::runtime_error(fmt::format("{}: tensor '{}' ({}) holds a NaN or infinity at {} {}: the file is damaged", path, name,
                                                 dtypeName(t.dtype()), isQuantized(t.dtype()) ? "the scale of block" : "element", *at));
    }
}

std::string Model::weightsDType() const {
    std::map<std::string, size_t> count;
    for (const auto& [n, t] : tensors) count[dtypeName(t.dtype())]++;
    if (count.size() == 1) return count.begin()->first;
    return count.empty() ? "none" : "mixed";
}

}  // namespace llama
