#pragma once
// One F32 gradient per trainable weight of a model, found by the weight itself:
// grads.of(attn_wq) is the gradient of attn_wq, however a layer holds it.
#include <string>
#include <utility>
#include <vector>

#include "model/model.h"
#include "tensor/tensor.h"

namespace llama {

class Gradients {
public:
    // Zeroed gradients for every weight of `model`, which must be F32 (the master weights). When the
    // model carries an adapter being trained (LoRA fine-tuning), its A and B are the weights
    // trained instead, and the model's own are frozen: their gradient, of(), is an empty Tensor
    // that the backward ops leave alone (ml/backward_ops.h).
    explicit Gradients(const Model& model);

    Tensor& of(const Tensor& weight);
    const Tensor& of(const Tensor& weight) const { return const_cast<Gradients*>(this)->of(weight); }
    void zero();

    struct Entry {
        std::string name;
        Tensor weight;
        Tensor gradient;
    };
    const std::vector<Entry>& entries() const { return entries_; }
    std::vector<Entry>& entries() { return entries_; }

private:
    std::vector<Entry> entries_;  // in the model's order
    std::vector<Tensor> frozen_;  // weights of the model not trained, with no gradient
    Tensor noGradient_;
};

}  // namespace llama
