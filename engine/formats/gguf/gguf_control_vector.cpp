#include "formats/gguf/gguf_control_vector.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "formats/gguf/gguf_file.h"
#include "formats/gguf/gguf_writer.h"

namespace llama {

namespace {
constexpr const char* kArchitecture = "controlvector";
constexpr int kMaxLayer = 1 << 16;
// The most a control vector may add to one value of the residual stream. The largest residual values
// of released Llamas are about 1e4 (Sun et al. 2024, "Massive activations"; a unit direction times
// the largest SCALE is 1e4 too), so 1e6 is a hundred times past any the model makes; and a row of
// 65536 such values still squares and sums (RMSNorm's first step) to 7e16, far inside a float.
constexpr float kMaxSteeringValue = 1e6f;
constexpr const char* kSteeringBound =
    "a control vector may add at most 1e6 to a value of the residual stream (released Llamas' largest are about 1e4); make the "
    "file with `cvector --unit` or give a smaller SCALE";

// N of "direction.N" (decimal, no sign or leading zeros), or -1.
int directionIndex(const std::string& name) {
    constexpr std::string_view prefix = "direction.";
    if (name.rfind(prefix, 0) != 0) return -1;
    const std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 6 || (digits.size() > 1 && digits[0] == '0')) return -1;
    int n = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return -1;
        n = n * 10 + (c - '0');
    }
    return n <= kMaxLayer ? n : -1;
}
}  // namespace

std::map<int, std::vector<float>> readControlVectorFile(const std::string& path) {
    const GgufFile file = GgufFile::open(path);
    auto fail = [&](const std::string& what) { throw std::runtime_error(fmt::format("control vector {}: {}", path, what)); };
    if (const GgufValue* arch = file.find("general.architecture"); arch && arch->text != kArchitecture)
        fail(fmt::format("general.architecture is '{}', not '{}': this is not a control-vector file", arch->text, kArchitecture));
    if (file.tensors().empty()) fail("it has no direction.N tensors");
    std::map<int, std::vector<float>> directions;
    size_t dim = 0;
    for (const GgufTensorInfo& info : file.tensors()) {
        const int n = directionIndex(info.name);
        if (n < 0) fail(fmt::format("tensor '{}': expected direction.N, N a layer from 1", info.name));
        if (n == 0) fail("direction.0: llama.cpp counts control-vector layers from 1 (the first block is never steered)");
        if (info.ggmlType != uint32_t(GgmlType::F32)) fail(fmt::format("{} is {}: expected F32", info.name, ggmlTypeName(info.ggmlType)));
        if (info.shape.size() != 1) fail(fmt::format("{} has {} dimensions: expected one (dim floats)", info.name, info.shape.size()));
        const size_t length = size_t(info.shape[0]);
        if (dim == 0) dim = length;
        if (length != dim || length == 0)
            fail(fmt::format("{} has {} floats, but {} has {}", info.name, length, file.tensors().front().name, dim));
        if (directions.count(n)) fail(fmt::format("{} appears twice", info.name));
        std::vector<float> values(length);
        std::memcpy(values.data(), file.tensor(info).data<float>(), length * sizeof(float));
        for (size_t i = 0; i < length; ++i) {
            if (!std::isfinite(values[i])) fail(fmt::format("{}[{}] is {}: every value must be a finite number", info.name, i, values[i]));
            if (std::fabs(values[i]) > kMaxSteeringValue)
                fail(fmt::format("{} (layer {}) element {} is {:g}: {}", info.name, n + 1, i, values[i], kSteeringBound));
        }
        directions.emplace(n, std::move(values));
    }
    // llama.cpp's generator writes direction.1 to direction.(n_layers - 1): a gap is a damaged file.
    const int last = directions.rbegin()->first;
    for (int n = 1; n < last; ++n)
        if (!directions.count(n)) fail(fmt::format("direction.{} is missing (the file has directions up to direction.{})", n, last));
    if (const GgufValue* count = file.find(std::string(kArchitecture) + ".layer_count"); count && count->isInteger() && count->integer != last)
        fail(fmt::format("{}.layer_count is {}, but the file has {} directions", kArchitecture, count->integer, last));
    return directions;
}

std::shared_ptr<const Steering> loadSteering(const std::vector<ControlVectorFile>& files, std::optional<std::pair<int, int>> layers) {
    auto steering = std::make_shared<Steering>();
    steering->files = files;
    steering->layers = layers;
    std::map<int, std::vector<float>> sum;
    std::string first;
    for (const auto& f : files) {
        for (const auto& [n, values] : readControlVectorFile(f.path)) {
            if (steering->dim == 0) steering->dim = int(values.size()), first = f.path;
            if (int(values.size()) != steering->dim)
                throw std::runtime_error(fmt::format("control vector {}: its directions have {} floats, but {}'s have {}", f.path, values.size(), first,
                                                     steering->dim));
            auto& acc = sum[n];
            acc.resize(values.size(), 0.0f);
            for (size_t i = 0; i < values.size(); ++i) {
                acc[i] += values[i] * f.scale;
                if (std::fabs(acc[i]) > kMaxSteeringValue)
                    throw std::runtime_error(fmt::format("control vector {}:{}: direction.{} (layer {}) element {} is {:g}, which scaled{} adds {:g}: {}",
                                                         f.path, f.scale, n, n + 1, i, values[i], files.size() > 1 ? " and summed" : "", acc[i],
                                                         kSteeringBound));
            }
        }
    }
    if (layers)
        for (int layer = layers->first; layer <= layers->second; ++layer)
            if (!sum.count(layer - 1))
                throw std::runtime_error(fmt::format("--control-vector-layers {}-{}: no file has a direction for layer {} (direction.{}){}", layers->first,
                                                     layers->second, layer, layer - 1,
                                                     layer == 1 ? ": llama.cpp's files never steer the first layer" : ""));
    for (auto& [n, values] : sum) {
        if (layers && (n + 1 < layers->first || n + 1 > layers->second)) continue;
        Tensor t({int64_t(values.size())}, DType::F32);
        std::memcpy(t.mutableData<float>(), values.data(), values.size() * sizeof(float));
        steering->directions.emplace(n, std::move(t));
    }
    return steering;
}

void writeControlVectorFile(const std::string& path, const std::map<int, std::vector<float>>& directions, const std::string& modelHint) {
    GgufWriter w;
    w.add("general.architecture", GgufValue::ofString(kArchitecture));
    w.add(std::string(kArchitecture) + ".model_hint", GgufValue::ofString(modelHint));
    w.add(std::string(kArchitecture) + ".layer_count", GgufValue::ofI32(int32_t(directions.size())));
    for (const auto& entry : directions) {
        const std::vector<float>& values = entry.second;  // a lambda cannot capture a structured binding in C++20
        w.addTensor(fmt::format("direction.{}", entry.first), {int64_t(values.size())}, DType::F32, [&values] {
            std::vector<uint8_t> bytes(values.size() * sizeof(float));
            std::memcpy(bytes.data(), values.data(), bytes.size());
            return bytes;
        });
    }
    w.write(path);
}

}  // namespace llama
