#include "formats/meta/torch_checkpoint.h"

#include <stdexcept>
#include <unordered_set>

#include "formats/meta/pickle.h"
#include "formats/meta/zip_index.h"

namespace llama {

namespace {

struct Archive {
    const std::string& path;
    const ZipIndex& zip;
    std::string folder;  // "consolidated/" (varies: torch uses the file's base name)
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw std::runtime_error("checkpoint '" + path + "': " + what);
}

const ZipEntry& findDataPkl(const std::string& path, const ZipIndex& zip) {
    for (const ZipEntry& e : zip.entries())
        if (e.name.ends_with("/data.pkl")) return e;
    fail(path, "no <folder>/data.pkl entry; not a checkpoint written by torch.save");
}

DType storageDType(const Archive& a, const std::string& tensor, const std::string& storageClass) {
    if (storageClass == "BFloat16Storage") return DType::BF16;
    if (storageClass == "FloatStorage") return DType::F32;
    if (storageClass == "HalfStorage")
        fail(a.path, "tensor '" + tensor + "' is float16, which this engine does not support (only bfloat16 and float32)");
    fail(a.path, "tensor '" + tensor + "' has unsupported storage " + storageClass);
}

// Checks everything the pickle claims against the archive before pointing into it.
Tensor viewTensor(const Archive& a, const std::string& name, const pickle::TensorRef& t,
                  const std::shared_ptr<const MappedFile>& file) {
    if (t.size.size() > Dims::kMaxDims || t.stride.size() != t.size.size())
        fail(a.path, "tensor '" + name + "' has " + std::to_string(t.size.size()) + " dimensions and " + std::to_string(t.stride.size()) +
                         " strides: expected as many of each, at most " + std::to_string(Dims::kMaxDims));
    const Shape size(t.size.begin(), t.size.end()), stride(t.stride.begin(), t.stride.end());
    const DType dtype = storageDType(a, name, t.storage.storageClass);
    const size_t elem = dtypeSize(dtype);
    const std::string entryName = a.folder + "data/" + t.storage.key;
    const ZipEntry* entry = a.zip.find(entryName);
    if (!entry) fail(a.path, "tensor '" + name + "': storage entry '" + entryName + "' is missing");
    std::span<const std::byte> storage = a.zip.data(*entry);
    const uint64_t storageNumel = uint64_t(t.storage.numel);
    if (storageNumel > storage.size() / elem || storage.size() != storageNumel * elem)
        fail(a.path, "tensor '" + name + "': storage entry '" + entryName + "' has " + std::to_string(storage.size()) +
                         " bytes, expected " + std::to_string(storageNumel) + " elements of " + std::to_string(elem) +
                         " bytes");

    uint64_t numel = 1;
    for (int64_t d : size) {
        if (d < 0) fail(a.path, "tensor '" + name + "' has a negative dimension");
        if (d && numel > storageNumel / uint64_t(d)) numel = storageNumel + 1;  // too big; caught below
        else numel *= uint64_t(d);
    }
    if (t.storageOffset < 0 || numel > storageNumel || uint64_t(t.storageOffset) > storageNumel - numel)
        fail(a.path, "tensor '" + name + "' of shape " + shapeToString(size) + " at element offset " +
                         std::to_string(t.storageOffset) + " does not fit its storage of " +
                         std::to_string(storageNumel) + " elements");
    // Our kernels assume row-major contiguous tensors; dimensions of size 1 may have any
    // stride, and so may all of an empty tensor's.
    int64_t expected = 1;
    for (size_t i = size.size(); numel && i-- > 0;) {
        if (size[i] != 1 && stride[i] != expected)
            fail(a.path, "tensor '" + name + "' is not contiguous: shape " + shapeToString(size) + ", stride " +
                             shapeToString(stride) + " (expected row-major strides)");
        expected *= size[i];
    }
    const std::byte* data = storage.data() + uint64_t(t.storageOffset) * elem;
    if (reinterpret_cast<uintptr_t>(data) % elem)
        fail(a.path, "tensor '" + name + "' data is not aligned to its " + std::to_string(elem) + "-byte elements");
    return Tensor::view(size, dtype, file, data);
}

}  // namespace

TorchCheckpoint TorchCheckpoint::load(const std::string& path) {
    TorchCheckpoint ckpt;
    ckpt.file_ = std::make_shared<const MappedFile>(path);
    const ZipIndex zip(ckpt.file_->bytes(), path);
    const ZipEntry& pkl = findDataPkl(path, zip);
    const Archive archive{path, zip, pkl.name.substr(0, pkl.name.size() - std::string_view("data.pkl").size())};

    // Written by newer torch versions; storages are raw bytes in this byte order.
    if (const ZipEntry* order = zip.find(archive.folder + "byteorder")) {
        std::span<const std::byte> b = zip.data(*order);
        if (std::string_view(reinterpret_cast<const char*>(b.data()), b.size()) != "little")
            fail(path, "storages are not little-endian (byteorder entry)");
    }

    pickle::ValuePtr root = pickle::unpickle(zip.data(pkl), path + ":" + pkl.name);
    const auto* dict = std::get_if<pickle::Dict>(&root->v);
    if (!dict) fail(path, std::string("data.pkl holds a ") + root->typeName() + ", expected a state dict");

    std::unordered_set<std::string> seen;
    for (const auto& [key, value] : dict->items) {
        const auto* name = std::get_if<std::string>(&key->v);
        if (!name) fail(path, std::string("state dict key is a ") + key->typeName() + ", expected a string");
        const auto* ref = std::get_if<pickle::TensorRef>(&value->v);
        if (!ref) fail(path, "'" + *name + "' is a " + value->typeName() + ", expected a tensor");
        if (!seen.insert(*name).second) fail(path, "tensor '" + *name + "' appears twice");
        ckpt.tensors_.push_back({*name, viewTensor(archive, *name, *ref, ckpt.file_)});
        ckpt.totalBytes_ += ckpt.tensors_.back().tensor.byteSize();
    }
    return ckpt;
}

const Tensor* TorchCheckpoint::find(std::string_view name) const {
    for (const NamedTensor& t : tensors_)
        if (t.name == name) return &t.tensor;
    return nullptr;
}

}  // namespace llama
