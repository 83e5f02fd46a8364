#pragma once
// What every format's reader hands back: its tensors by name, and the progress of reading their
// bytes in. Shared by formats/meta, hf, gguf and llama2c, so none of them includes another.
#include <cstddef>
#include <functional>
#include <string>

#include "tensor/tensor.h"

namespace llama {

struct NamedTensor {
    std::string name;
    Tensor tensor;  // a read-only view whose owner keeps the file's mapping alive
};

// progress(done, total), in bytes.
using LoadProgress = std::function<void(size_t done, size_t total)>;

}  // namespace llama
