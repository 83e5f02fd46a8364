#pragma once
// Reads Hugging Face's safetensors format: 8 bytes (little-endian u64 N), N bytes of JSON
// header {"name": {"dtype": "BF16", "shape": [..], "data_offsets": [begin, end]}, ...,
// "__metadata__": {...}}, then the data section that the offsets point into. Each tensor
// becomes a view into the memory-mapped file: nothing is copied.
//
// The header comes from whoever made the file, so it is checked before anything is used:
// its length is bounded (kMaxSafetensorsHeader), JSON errors are named, every range must lie
// inside the data section, agree with dtype x shape, be aligned for its dtype, and not
// overlap another. BF16 and F32 load; F16 is refused with a clear error rather than
// converted (our kernels read bfloat16, and a silent 2x copy of an 8B model is 16 GB).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/mapped_file.h"
#include "formats/named_tensor.h"

namespace llama {

inline constexpr size_t kMaxSafetensorsHeader = 100u << 20;  // 100 MB: real headers are well under 1 MB

class SafetensorsFile {
public:
    // Throws std::runtime_error "PATH: what is wrong (tensor NAME)".
    static SafetensorsFile load(const std::string& path);

    const MappedFile& file() const { return *file_; }
    // Ordered by position in the file.
    const std::vector<NamedTensor>& tensors() const { return tensors_; }
    void prefault(const LoadProgress& progress = {}) const { file_->prefault(progress); }

private:
    std::shared_ptr<const MappedFile> file_;
    std::vector<NamedTensor> tensors_;
};

}  // namespace llama
