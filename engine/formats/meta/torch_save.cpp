#include "formats/meta/torch_save.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "formats/meta/state_dict_pickle.h"
#include "formats/meta/zip_writer.h"
#include "io/atomic_output.h"
#include "ml/ops.h"
#include "tensor/quant_blocks.h"

namespace llama {

namespace {

// `t` as `dtype`: itself when it already is, else a converted copy (through F32, which every dtype
// decodes to exactly).
Tensor storedAs(const Tensor& t, DType dtype) {
    if (t.dtype() == dtype) return t;
    Tensor f32 = Tensor::uninitialized(t.shape(), DType::F32);
    dequantize(t.dtype(), t.rawData(), f32.mutableData<float>(), t.numel());
    return dtype == DType::F32 ? f32 : ml::ToBFloat16(f32);
}

std::span<const std::byte> bytesOf(const Tensor& t) { return {static_cast<const std::byte*>(t.rawData()), t.byteSize()}; }

}  // namespace

void writeTorchSave(const std::string& path, const std::vector<NamedTensor>& tensors, DType dtype) {
    auto fail = [&](const std::string& what) { throw std::invalid_argument("torch.save file '" + path + "': " + what); };
    if (dtype != DType::F32 && dtype != DType::BF16) fail(std::string("cannot store tensors as ") + dtypeName(dtype) + "; only F32 or BF16");
    std::vector<NamedTensor> stored;  // shapes and the stored dtype, for the pickle
    for (const NamedTensor& t : tensors) {
        if (!t.tensor.hasData() || !t.tensor.isContiguous()) fail("tensor '" + t.name + "' is " + (t.tensor.hasData() ? "a strided view" : "shape only"));
        stored.push_back({t.name, Tensor::shapeOnly(t.tensor.shape(), dtype)});
    }
    const std::string pickle = pickleStateDict(stored);
    const std::string folder = std::filesystem::path(path).stem().string() + "/";

    AtomicOutputFile file(path, 1 << 20);
    ZipWriter zip(file.stream());
    zip.add(folder + "data.pkl", std::as_bytes(std::span(pickle)));
    // torch writes the storages in the order of their keys as strings: "0", "1", "10", "11", ..., "2".
    std::vector<std::string> keys;
    for (size_t i = 0; i < tensors.size(); ++i) keys.push_back(std::to_string(i));
    std::sort(keys.begin(), keys.end());
    for (const std::string& key : keys) zip.add(folder + "data/" + key, bytesOf(storedAs(tensors[std::stoul(key)].tensor, dtype)));
    zip.add(folder + "version", std::as_bytes(std::span("3\n", 2)));
    zip.finish();
    file.commit();
}

}  // namespace llama
