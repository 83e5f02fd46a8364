#pragma once
// Writes a GGUF v3 file: metadata in the order added, tensors in the order added, each
// tensor's data aligned to 32 bytes (general.alignment's default), shapes given in
// PyTorch's order and written innermost-first as GGUF wants. Tensor data is produced one
// tensor at a time while writing, so converting a large model never holds it all in memory.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "formats/gguf/gguf_value.h"
#include "tensor/tensor.h"

namespace llama {

class GgufWriter {
public:
    void add(std::string key, GgufValue value) { metadata_.emplace_back(std::move(key), std::move(value)); }
    // `encode` returns exactly the tensor's encoding (dtypeBytes(dtype, numel) bytes).
    void addTensor(std::string name, Shape shape, DType dtype, std::function<std::vector<uint8_t>()> encode);
    // Throws std::runtime_error naming the path if it cannot be written.
    void write(const std::string& path) const;

private:
    struct PendingTensor {
        std::string name;
        Shape shape;
        DType dtype;
        std::function<std::vector<uint8_t>()> encode;
    };
    std::vector<std::pair<std::string, GgufValue>> metadata_;
    std::vector<PendingTensor> tensors_;
};

}  // namespace llama
