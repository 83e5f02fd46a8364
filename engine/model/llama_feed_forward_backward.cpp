// LlamaFeedForward's backward pass: Forward's five steps undone from the last.
#include "ml/backward_ops.h"
#include "ml/ops.h"
#include "model/llama_feed_forward.h"
#include "model/lora.h"
#include "model/forward_tape.h"
#include "model/gradient_norms.h"
#include "model/gradients.h"

namespace llama {

Tensor LlamaFeedForward::Backward(InferenceContext& ctx, const BlockTape& saved, const Tensor& dOutput, Gradients& grads) const {
    // output = gated · ffn_downᵀ: dGated = dOutput · ffn_down, ffn_down's gradient dOutputᵀ · gated.
    Tensor dGated = ml::LinearBackwardInput(dOutput, ffn_down);
    ml::LinearBackwardWeights(grads.of(ffn_down), dOutput, saved.gated);
    addLoraBackward(ctx, "ffn_down", ffn_down_lora, dOutput, saved.gated, dGated, grads);
    ctx.stage(marks::FfnDownBackward{.dOutput = dOutput, .ffn_down = ffn_down, .dGated = dGated, .dFfnDown = grads.of(ffn_down), .norms = normsOf("dGated", dGated, "dFfnDown", grads.of(ffn_down))});

    // gated = silu(gate) * ffnUpX: each factor's gradient is dGated times the other factor.
    Tensor dSiluGate = ml::MultiplyElementwise(dGated, saved.ffnUpX);
    Tensor dFfnUpX = ml::MultiplyElementwise(dGated, saved.siluGate);
    ctx.stage(marks::FfnMultiplyBackward{.dGated = dGated, .dSiluGate = dSiluGate, .dFfnUpX = dFfnUpX, .norms = normsOf("dSiluGate", dSiluGate, "dFfnUpX", dFfnUpX)});

    // silu(gate) = gate * sigmoid(gate).
    Tensor dGate = ml::SiluBackward(saved.gate, dSiluGate);
    ctx.stage(marks::FfnSiluBackward{.gate = saved.gate, .dGate = dGate, .norms = normsOf("dGate", dGate)});

    // gate = x · ffn_gateᵀ and ffnUpX = x · ffn_upᵀ: x fed both, so its gradient is the sum.
    Tensor dX = ml::LinearBackwardInput(dGate, ffn_gate);
    ml::AddLinearBackwardInput(dX, dFfnUpX, ffn_up);
    ml::LinearBackwardWeights({{grads.of(ffn_gate), dGate}, {grads.of(ffn_up), dFfnUpX}}, saved.normalizedH);
    addLoraBackward(ctx, "ffn_gate", ffn_gate_lora, dGate, saved.normalizedH, dX, grads);
    addLoraBackward(ctx, "ffn_up", ffn_up_lora, dFfnUpX, saved.normalizedH, dX, grads);
    ctx.stage(marks::FfnGateUpBackward{.dGate = dGate, .dFfnUpX = dFfnUpX, .dX = dX, .dFfnGate = grads.of(ffn_gate), .dFfnUp = grads.of(ffn_up),
                                           .norms = normsOf("dX", dX, "dFfnGate", grads.of(ffn_gate), "dFfnUp", grads.of(ffn_up))});
    return dX;
}

}  // namespace llama
