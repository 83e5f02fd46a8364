#include "stages/stage_catalog.h"

#include <stdexcept>

namespace llama {

namespace {
constexpr std::string_view kForward = "10-forward-pass.md";

const std::vector<StageInfo> kCatalog = {
    {StageId::Tokenize, "tokenize", 1, "Tokenization", "08-tokenization.md"},
    {StageId::TokensTensor, "tokens_tensor", 2, "Creating the tokens tensor", "09-generation-loop.md"},
    {StageId::SequenceLoop, "sequence_loop", 3, "Looping through the sequence", "09-generation-loop.md"},
    {StageId::InputEmbeddings, "input_embeddings", 4, "Creating inputTensor from the embedding rows", kForward},
    {StageId::FreqsCis, "freqs_cis", 4, "Preparing freqs_cis for this step", "07-rope.md"},
    {StageId::Mask, "mask", 4, "Preparing the causal mask", kForward},
    {StageId::BlockForward, "block", 5, "Forward through a transformer block", kForward},
    {StageId::AttentionNorm, "attention_norm", 6, "Attention pre-normalization", kForward},
    {StageId::AttentionForward, "attention", 7, "Attention module", kForward},
    {StageId::QKV, "qkv", 8, "Calculating xq, xk and xv", kForward},
    {StageId::ReshapeHeads, "reshape_heads", 9, "Reshaping xq, xk, xv to heads", kForward},
    {StageId::Rotary, "rotary", 10, "Applying rotary embeddings", "07-rope.md"},
    {StageId::CacheWrite, "cache_write", 11, "Writing xk and xv into the KV cache", "09-generation-loop.md"},
    {StageId::CacheRead, "cache_read", 11, "Reading keys and values back from the KV cache", "09-generation-loop.md"},
    {StageId::RepeatKV, "repeat_kv", 11, "Repeating KV heads (attentionRepeatKV)", kForward},
    {StageId::Transposes, "transposes", 12, "Transposing xq, keys and values", kForward},
    {StageId::ScoresMatMul, "scores_matmul", 13, "Scores: xq x keys", kForward},
    {StageId::ScoresScale, "scores_scale", 13, "Scores: dividing by sqrt(HeadDim)", kForward},
    {StageId::ScoresMask, "scores_mask", 13, "Scores: adding the mask", kForward},
    {StageId::ScoresSoftmax, "scores_softmax", 13, "Scores: softmax", kForward},
    {StageId::AttentionValues, "attention_values", 14, "Attention output: scores x values", kForward},
    {StageId::AttentionReshape, "attention_reshape", 14, "Attention output: transpose and reshape", kForward},
    {StageId::AttentionWo, "attention_wo", 14, "Attention output: attn_wo projection", kForward},
    {StageId::AttentionResidual, "attention_residual", 15, "Adding attention output to the residual", kForward},
    {StageId::FfnNorm, "ffn_norm", 16, "Feed-forward pre-normalization", kForward},
    {StageId::FfnGate, "ffn_gate", 17, "Feed-forward: ffn_gate", kForward},
    {StageId::FfnSilu, "ffn_silu", 17, "Feed-forward: SiLU", kForward},
    {StageId::FfnUp, "ffn_up", 17, "Feed-forward: ffn_up", kForward},
    {StageId::FfnMultiply, "ffn_multiply", 17, "Feed-forward: silu(gate) * up", kForward},
    {StageId::FfnDown, "ffn_down", 17, "Feed-forward: ffn_down", kForward},
    {StageId::FfnResidual, "ffn_residual", 18, "Adding feed-forward output to the residual", kForward},
    {StageId::OutputNorm, "output_norm", 19, "Output: final normalization", "11-output-and-sampling.md"},
    {StageId::OutputProjection, "output_projection", 19, "Output: projection to the vocabulary", "11-output-and-sampling.md"},
    {StageId::Logits, "logits", 19, "Output: logits as Float32", "11-output-and-sampling.md"},
    {StageId::Sample, "sample", 20, "Sampling the next token and appending it", "11-output-and-sampling.md"},
};
}  // namespace

const std::vector<StageInfo>& stageCatalog() { return kCatalog; }

const StageInfo& stageInfo(StageId id) {
    const auto& entry = kCatalog.at(static_cast<size_t>(id));
    if (entry.id != id) throw std::logic_error("stage catalog is out of order");
    return entry;
}

const StageInfo* findStage(std::string_view key) {
    for (const auto& s : kCatalog)
        if (s.key == key) return &s;
    return nullptr;
}

}  // namespace llama
