#include "model/model.h"

#include <map>
#include <stdexcept>

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

std::string Model::weightsDType() const {
    std::map<std::string, size_t> count;
    for (const auto& [n, t] : tensors) count[dtypeName(t.dtype())]++;
    if (count.size() == 1) return count.begin()->first;
    return count.empty() ? "none" : "mixed";
}

}  // namespace llama
