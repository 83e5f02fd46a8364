#include "model/forward_tape.h"

#include <stdexcept>
#include <string>

namespace llama {

namespace {

Tensor field(const StageEvent& event, const char* name) {
    const Tensor* t = event.tensorField(name);
    if (!t) throw std::logic_error(std::string("stage '") + std::string(event.info().key) + "' has no tensor '" + name + "'");
    return *t;
}

}  // namespace

void ForwardTape::onStage(const StageEvent& event) {
    const bool inBlock = event.layer >= 0 && size_t(event.layer) < layers.size();
    BlockTape* block = inBlock ? &layers[size_t(event.layer)] : nullptr;
    switch (event.stage) {
        case StageId::InputEmbeddings: inputTokens = field(event, "inputTokens"); break;
        case StageId::FreqsCis: freqsCis = field(event, "freqsCis"); break;
        case StageId::BlockForward: block->x = field(event, "x"); break;
        case StageId::AttentionNorm: block->normalizedX = field(event, "normalizedX"); break;
        case StageId::Rotary:
            block->xq = field(event, "xq");
            block->xk = field(event, "xk");
            break;
        case StageId::ReshapeHeads: block->xv = field(event, "xv"); break;
        case StageId::ScoresSoftmax: block->scores = field(event, "scores"); break;
        case StageId::AttentionReshape: block->attention = field(event, "output"); break;
        case StageId::AttentionResidual: block->h = field(event, "h"); break;
        case StageId::FfnNorm: block->normalizedH = field(event, "normalizedH"); break;
        case StageId::FfnGate: block->gate = field(event, "h"); break;
        case StageId::FfnSilu: block->siluGate = field(event, "h"); break;
        case StageId::FfnUp: block->ffnUpX = field(event, "ffnUpX"); break;
        case StageId::FfnMultiply: block->gated = field(event, "h"); break;
        case StageId::FfnResidual:
            if (size_t(event.layer) + 1 == layers.size()) blocksOutput = field(event, "output");
            break;
        case StageId::OutputNorm: normalizedOutput = field(event, "currentTensor"); break;
        default: break;
    }
}

}  // namespace llama
