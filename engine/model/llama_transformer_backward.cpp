// LlamaTransformer's backward pass: the output stages undone, every block from the last to the
// first, and the embedding rows, each of which gets the gradient of the positions that read it.
#include <stdexcept>

#include "ml/backward_ops.h"
#include "ml/ops.h"
#include "model/llama_transformer.h"
#include "model/forward_tape.h"
#include "model/gradient_norms.h"
#include "model/gradients.h"

namespace llama {

void LlamaTransformer::Backward(InferenceContext& ctx, const ForwardTape& tape, const Tensor& dLogits, Gradients& grads) const {
    if (ComputeDType != DType::F32) throw std::invalid_argument("training computes in F32, this transformer in " + std::string(dtypeName(ComputeDType)));
    const auto here = ctx.at(-1, Position(0), Cell(0));

    // Stage 19 backward: logits = normalized · outputᵀ.
    Tensor dNormalized = ml::LinearBackwardInput(dLogits, output);
    ml::LinearBackwardWeights(grads.of(output), dLogits, tape.normalizedOutput);
    ctx.stage(marks::OutputProjectionBackward{.dLogits = dLogits, .outputWeights = output, .dCurrentTensor = dNormalized, .dOutputWeights = grads.of(output), .norms = normsOf("dCurrentTensor", dNormalized, "dOutputWeights", grads.of(output))});

    // Stage 19 backward: the final norm.
    auto [dBlocksOutput, dOutputNorm] = ml::RMSNormBackward(tape.blocksOutput, output_norm.weights, dNormalized, output_norm.epsilon);
    ml::AccumulateInto(grads.of(output_norm.weights), dOutputNorm);
    ctx.stage(marks::OutputNormBackward{.dCurrentTensor = dBlocksOutput, .output_norm = output_norm.weights, .dOutputNorm = grads.of(output_norm.weights), .norms = normsOf("dCurrentTensor", dBlocksOutput, "dOutputNorm", grads.of(output_norm.weights))});

    // Stage 5 backward: the blocks in reverse order.
    Tensor dCurrent = dBlocksOutput;
    for (auto layer = Layers.rbegin(); layer != Layers.rend(); ++layer)
        dCurrent = layer->Backward(ctx, tape.layers[size_t(layer->LayerIndex)], dCurrent, tape.freqsCis, grads);

    // Stage 4 backward: row t of the embedding table gets the gradient of every position holding token t.
    ml::AddRowsInto(grads.of(tok_embd), tape.inputTokens, dCurrent);
    ctx.stage(marks::InputEmbeddingsBackward{.inputTokens = tape.inputTokens, .dInputTensor = dCurrent, .dTokEmbd = grads.of(tok_embd), .norms = normsOf("dInputTensor", dCurrent, "dTokEmbd", grads.of(tok_embd))});
}

}  // namespace llama
