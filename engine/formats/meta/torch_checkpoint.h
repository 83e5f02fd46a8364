#pragma once
// Reads a checkpoint written by torch.save(state_dict), such as Meta's consolidated.00.pth:
// a zip archive holding <folder>/data.pkl (a pickle naming each tensor with its storage,
// offset, size and stride) and <folder>/data/<key> (each storage's raw little-endian
// bytes). Every weight becomes a Tensor view into the memory-mapped file, so loading
// copies nothing and takes no time however large the file is.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "formats/named_tensor.h"
#include "io/mapped_file.h"
#include "tensor/tensor.h"

namespace llama {

class TorchCheckpoint {
public:
    // Throws std::runtime_error naming the file (and tensor) for anything it cannot read:
    // not a zip, compressed entries, disallowed pickle globals, float16 or non-contiguous
    // tensors, storages too small for their tensors. Only headers and the pickle are
    // read, so this is instant even for 16 GB; the weights' pages are read on first use
    // (or by prefault(), which is where a progress bar belongs).
    static TorchCheckpoint load(const std::string& path);

    // The mapping every tensor points into (its path, size and bytes).
    const MappedFile& file() const { return *file_; }
    // In the order of the state dict; BF16 or F32.
    const std::vector<NamedTensor>& tensors() const { return tensors_; }
    // nullptr if there is no tensor of that name.
    const Tensor* find(std::string_view name) const;
    // The tensors' bytes, summed (storages shared by several tensors count for each).
    size_t totalBytes() const { return totalBytes_; }
    // Reads the whole file into the page cache now rather than during the first forward
    // pass, reporting file bytes done so that a CLI can show a progress bar.
    void prefault(const LoadProgress& progress = {}) const { file_->prefault(progress); }

private:
    std::shared_ptr<const MappedFile> file_;
    std::vector<NamedTensor> tensors_;
    size_t totalBytes_ = 0;
};

}  // namespace llama
