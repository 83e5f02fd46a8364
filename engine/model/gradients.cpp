#include "model/gradients.h"

#include <algorithm>
#include <stdexcept>

namespace llama {

Gradients::Gradients(const Model& model) {
    std::vector<std::pair<std::string, Tensor>> trained;
    for (const LoraAdapter& adapter : model.adapters) {
        if (!adapter.trained) continue;
        for (const auto& [name, pair] : adapter.pairs) {
            trained.emplace_back(name + ".lora_a", pair.A);
            trained.emplace_back(name + ".lora_b", pair.B);
        }
    }
    if (trained.empty()) {
        trained = model.tensors;
    } else {
        for (const auto& [name, weight] : model.tensors) frozen_.push_back(weight);
    }
    for (const auto& [name, weight] : trained) {
        if (weight.dtype() != DType::F32 || !weight.hasData())
            throw std::invalid_argument("weight '" + name + "' is " + dtypeName(weight.dtype()) + ": training needs F32 weights with values");
        entries_.push_back({name, weight, Tensor(weight.shape(), DType::F32)});
    }
}

Tensor& Gradients::of(const Tensor& weight) {
    for (Entry& e : entries_)
        if (e.weight.rawData() == weight.rawData()) return e.gradient;
    for (const Tensor& w : frozen_)
        if (w.rawData() == weight.rawData()) return noGradient_;
    throw std::logic_error("a weight " + weight.shapeStr() + " that is not one of the model's has no gradient");
}

void Gradients::zero() {
    for (Entry& e : entries_) std::fill_n(e.gradient.mutableData<float>(), e.gradient.numel(), 0.0f);
}

}  // namespace llama
