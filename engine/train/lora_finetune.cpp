#include "train/lora_finetune.h"

#include <fmt/format.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "ml/ops.h"
#include "model/synthetic.h"

namespace llama {

namespace {
const std::pair<const char*, const char*> kTargets[] = {
    {"wq", "attention.wq.weight"},    {"wk", "attention.wk.weight"},    {"wv", "attention.wv.weight"},    {"wo", "attention.wo.weight"},
    {"w1", "feed_forward.w1.weight"}, {"w2", "feed_forward.w2.weight"}, {"w3", "feed_forward.w3.weight"},
};
}  // namespace

std::vector<std::string> parseLoraTargets(const std::string& text) {
    std::vector<std::string> names;
    std::istringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        const auto it = std::find_if(std::begin(kTargets), std::end(kTargets), [&](const auto& t) { return item == t.first; });
        if (it == std::end(kTargets)) throw std::invalid_argument(fmt::format("--lora-targets: '{}' is not one of wq, wk, wv, wo, w1, w2, w3", item));
        if (std::find(names.begin(), names.end(), it->second) != names.end())
            throw std::invalid_argument(fmt::format("--lora-targets: '{}' is named twice", item));
        names.push_back(it->second);
    }
    if (names.empty()) throw std::invalid_argument("--lora-targets: name at least one of wq, wk, wv, wo, w1, w2, w3");
    return names;
}

LoraAdapter newLoraAdapter(const Model& model, int rank, float alpha, const std::vector<std::string>& targets, uint64_t seed) {
    LoraAdapter adapter{.trained = true, .alpha = alpha};
    uint64_t state = seed;
    for (int layer = 0; layer < model.args.n_layers; ++layer)
        for (const std::string& target : targets) {
            const std::string name = fmt::format("layers.{}.{}", layer, target);
            Shape shape;
            for (const auto& [n, t] : model.tensors)
                if (n == name) shape = t.shape();
            if (shape.size() != 2) throw std::invalid_argument(fmt::format("{}: the model has no matrix '{}' to adapt", model.path, name));
            if (rank > std::min(shape[0], shape[1]))
                throw std::invalid_argument(fmt::format("--lora-rank {} is more than {}'s smaller side ({} x {})", rank, name, shape[0], shape[1]));
            Tensor A({rank, shape[1]}, DType::F32);
            const double bound = 1.0 / std::sqrt(double(shape[1]));
            float* a = A.mutableData<float>();
            for (int64_t i = 0; i < A.numel(); ++i) a[i] = float((double(splitmix64(state) >> 11) * 0x1.0p-53 * 2 - 1) * bound);
            adapter.pairs[name] = {A, Tensor({shape[0], rank}, DType::F32)};
        }
    return adapter;
}

void widenWeightsToF32(Model& model) {
    for (auto& [name, weight] : model.tensors) {
        if (weight.dtype() == DType::F32) continue;
        if (weight.dtype() != DType::BF16)
            throw std::invalid_argument(fmt::format("{}: '{}' is {}; LoRA fine-tuning reads F32 or BF16 weights", model.path, name, dtypeName(weight.dtype())));
        weight = ml::ToFloat32(weight);
    }
}

}  // namespace llama
