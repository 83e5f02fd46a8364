#pragma once
// A GGUF file (llama.cpp's format, versions 2 and 3), memory-mapped:
//   "GGUF", u32 version, u64 tensor count, u64 metadata count,
//   metadata: (string key, u32 type, value)*, tensor infos: (string name, u32 n_dims,
//   u64 ne[n_dims], u32 ggml type, u64 offset)*, padding to general.alignment (default 32),
//   then the tensor data; each offset is relative to that data section and aligned.
// Strings are u64 length + UTF-8 bytes; everything is little-endian.
// The file is untrusted: every count and length is checked against the bytes that remain
// before anything is allocated, and errors name the file, the offset and the field.
// ne[0] is the innermost (contiguous) dimension, so a PyTorch [out, in] weight is listed
// as ne = {in, out}: shapes are reported here already reversed to PyTorch's order.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "formats/gguf/gguf_value.h"
#include "io/mapped_file.h"
#include "tensor/tensor.h"

namespace llama {

// ggml's type ids (ggml.h, enum ggml_type) for the types we read and write.
enum class GgmlType : uint32_t { F32 = 0, F16 = 1, Q4_0 = 2, Q8_0 = 8, Q4_K = 12, Q6_K = 14, BF16 = 30 };

DType dtypeOfGgml(uint32_t ggmlType, const std::string& context);  // throws naming unsupported types
GgmlType ggmlOfDType(DType t);
// "Q5_K (13)" for any ggml type id, known to us or not.
std::string ggmlTypeName(uint32_t ggmlType);

struct GgufTensorInfo {
    std::string name;
    Shape shape;              // PyTorch order (ne reversed)
    uint32_t ggmlType = 0;
    DType dtype = DType::F32;
    uint64_t offset = 0;      // within the data section
};

class GgufFile {
public:
    static constexpr uint64_t kDefaultAlignment = 32;

    // Maps and parses `path`; throws std::runtime_error with file, offset and field.
    static GgufFile open(const std::string& path);

    const std::string& path() const { return file_->path(); }
    uint32_t version() const { return version_; }
    uint64_t alignment() const { return alignment_; }
    uint64_t dataOffset() const { return dataOffset_; }
    const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return metadata_; }
    const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
    // nullptr when absent.
    const GgufValue* find(const std::string& key) const;
    // A view into the mapped file (no copy).
    Tensor tensor(const GgufTensorInfo& info) const;
    const MappedFile& file() const { return *file_; }

private:
    std::shared_ptr<MappedFile> file_;
    uint32_t version_ = 0;
    uint64_t alignment_ = kDefaultAlignment;
    uint64_t dataOffset_ = 0;
    std::vector<std::pair<std::string, GgufValue>> metadata_;
    std::vector<GgufTensorInfo> tensors_;
};

}  // namespace llama
