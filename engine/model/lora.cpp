#include "model/lora.h"

#include <fmt/format.h>

#include "ml/backward_ops.h"
#include "ml/ops.h"
#include "model/gradient_norms.h"
#include "model/gradients.h"
#include "model/steering.h"

namespace llama {

LoraFile parseLoraArgument(const std::string& text) {
    const ControlVectorFile f = parseControlVectorArgument(text);
    return {f.path, f.scale};
}

std::string LoraAdapter::describe() const { return path.empty() ? "the adapter being trained" : fmt::format("--lora {}:{}", path, userScale); }

LoraUpdates loraUpdatesOf(const std::vector<LoraAdapter>& adapters, const std::string& weightName) {
    LoraUpdates updates;
    for (const LoraAdapter& adapter : adapters)
        if (auto it = adapter.pairs.find(weightName); it != adapter.pairs.end())
            updates.push_back({adapter.describe(), it->second.A, it->second.B, adapter.scaleOf(it->second)});
    return updates;
}

Tensor addLoraProducts(InferenceContext& ctx, const char* weightsName, const Tensor& x, Tensor y, const LoraUpdates& updates) {
    for (const LoraUpdate& lora : updates) {
        // Down to rank numbers per position, back up to out, scaled: the same order as llama.cpp's
        // ggml_mul_mat(b, ggml_mul_mat(a, cur)) then ggml_scale.
        const Tensor down = ml::LinearTransformation(x, lora.A);         // [S, rank]
        Tensor product = ml::LinearTransformation(down, lora.B);         // [S, out]
        product = ml::MultiplyElementwise(product, ml::Full({1, 1}, product.dtype(), lora.scale));
        Tensor output = ml::Add(y, product);
        ctx.stage(marks::LoraProduct{.weightsName = weightsName, .adapter = [&] { return lora.adapter; }, .x = x, .loraA = lora.A, .loraB = lora.B,
                                     .scale = [&] { return fmt::format("{:g}", lora.scale); }, .product = product, .output = output});
        y = output;
    }
    return y;
}

void addLoraBackward(InferenceContext& ctx, const char* weightsName, const LoraUpdates& updates, const Tensor& dy, const Tensor& x, Tensor& dX,
                     Gradients& grads) {
    for (const LoraUpdate& lora : updates) {
        const Tensor scaledDy = ml::MultiplyElementwise(dy, ml::Full({1, 1}, DType::F32, lora.scale));
        const Tensor down = ml::LinearTransformation(x, lora.A);             // u = x · Aᵀ [S, rank], as Forward made it
        ml::LinearBackwardWeights(grads.of(lora.B), scaledDy, down);         // dB += (scale · dy)ᵀ · u
        const Tensor dDown = ml::LinearBackwardInput(scaledDy, lora.B);      // du = scale · dy · B [S, rank]
        ml::LinearBackwardWeights(grads.of(lora.A), dDown, x);              // dA += duᵀ · x
        const Tensor dXLora = ml::LinearBackwardInput(dDown, lora.A);       // x's share: du · A
        ml::AccumulateInto(dX, dXLora);
        ctx.stage(marks::LoraBackward{.weightsName = weightsName, .adapter = [&] { return lora.adapter; }, .dY = dy, .x = x, .loraA = lora.A, .loraB = lora.B,
                                      .scale = [&] { return fmt::format("{:g}", lora.scale); }, .dLoraB = grads.of(lora.B), .dLoraA = grads.of(lora.A),
                                      .dXLora = dXLora, .norms = normsOf("dLoraB", grads.of(lora.B), "dLoraA", grads.of(lora.A), "dXLora", dXLora)});
    }
}

}  // namespace llama
