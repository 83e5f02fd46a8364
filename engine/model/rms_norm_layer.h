#pragma once
#include "ml/ops.h"
#include "tensor/tensor.h"

namespace llama {

// RMSNorm with its learned weights [Dim].
class RMSNorm {
public:
    RMSNorm(float epsilon, Tensor weights) : epsilon(epsilon), weights(std::move(weights)) {}
    Tensor Forward(const Tensor& x) const { return ml::RMSNorm(x, weights, epsilon); }

    float epsilon;
    Tensor weights;
};

}  // namespace llama
