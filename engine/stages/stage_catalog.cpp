#include "stages/stage_catalog.h"

#include <stdexcept>

namespace llama {

namespace {
constexpr std::string_view kForward = "10-forward-pass.md";
constexpr std::string_view kLoop = "09-generation-loop.md";
constexpr std::string_view kOutput = "11-output-and-sampling.md";
constexpr bool kInBlock = true, kOutside = false;

// The wording is the walkthrough's, word for word where it has a line for the step, so that a
// log can be compared with its documents. Fields every stage has: {layer} (0-based),
// {layerNumber}, {startPos}, {step}, and the model's {N_Layers}, {N_Heads}, {N_KVHeads},
// {N_Rep}, {HeadDim}.
const std::vector<StageInfo> kCatalog = {
    {StageId::Tokenize, "tokenize", 1, "Tokenization", "08-tokenization.md", kOutside, "",
     "Tokenized the prompt into {count} tokens:{ids}"},
    {StageId::TokensTensor, "tokens_tensor", 2, "Creating the tokens tensor", kLoop, kOutside, "tokens",
     "Created input tokens tensor: {tokens} Int32, prompt length {count}"},
    {StageId::SequenceLoop, "sequence_loop", 3, "Looping through the sequence", kLoop, kOutside, "inputTokens",
     "Running {phase} step {step}: inputTokens {inputTokens} at startPos {startPos}"},
    {StageId::InputEmbeddings, "input_embeddings", 4, "Creating inputTensor from the embedding rows", kForward, kOutside, "inputTensor",
     "LlamaTransformer.prepare started for inputTokens: {inputTokens}, startPos: {startPos}. sequenceLength: {sequenceLength}\n"
     "Calling ml.Fwd_Get_Rows for tok_embd {tok_embd} and inputTokens {inputTokens} -> tensor inputTensor {inputTensor}"},
    {StageId::FreqsCis, "freqs_cis", 4, "Preparing freqs_cis for this step", "07-rope.md", kOutside, "freqsCis",
     "Slicing PrecomputedFreqsCis {PrecomputedFreqsCis} at positions [{startPos}, {endPos}) -> tensor freqsCis {freqsCis}"},
    {StageId::Mask, "mask", 4, "Preparing the causal mask", kForward, kOutside, "mask",
     "LlamaTransformer.prepare finished inputTensor: {inputTensor}, freqsCis: {freqsCis}, mask: {mask}"},
    {StageId::BlockForward, "block", 5, "Forward through a transformer block", kForward, kInBlock, "x",
     "Calling LlamaTransformerBlock.Forward for layer: {layerNumber} / {N_Layers}, startPos: {startPos} -> tensor currentTensor\n"
     "LlamaTransformerBlock.Forward started for x: {x}, startPos: {startPos}, freqsCis: {freqsCis}, mask: {mask}"},
    {StageId::AttentionNorm, "attention_norm", 6, "Attention pre-normalization", kForward, kInBlock, "normalizedX",
     "Calling RMSNorm for tensor x {x} and LlamaTransformerBlock.attn_norm weights {attn_norm} -> tensor normalizedX"},
    {StageId::AttentionForward, "attention", 7, "Attention module", kForward, kInBlock, "normalizedX",
     "Calling LlamaAttention.Forward for tensor normalizedX {normalizedX} and startPos: {startPos}, freqsCis: {freqsCis}, mask: {mask} "
     "-> tensor h"},
    {StageId::QKV, "qkv", 8, "Calculating xq, xk and xv", kForward, kInBlock, "xq,xk,xv",
     "[Scheduling goroutine] ml.LinearTransformation for x {x} and LlamaAttention.attn_wq weights {attn_wq} -> tensor xq\n"
     "[Scheduling goroutine] ml.LinearTransformation for x {x} and LlamaAttention.attn_wk weights {attn_wk} -> tensor xk\n"
     "[Scheduling goroutine] ml.LinearTransformation for x {x} and LlamaAttention.attn_wv weights {attn_wv} -> tensor xv\n"
     "Parallel results, xq: {xq}, xk: {xk}, xv: {xv}"},
    {StageId::ReshapeHeads, "reshape_heads", 9, "Reshaping xq, xk, xv to heads", kForward, kInBlock, "xq,xk,xv",
     "Reshaping results, xq: {xq}, xk: {xk}, xv: {xv}"},
    {StageId::Rotary, "rotary", 10, "Applying rotary embeddings", "07-rope.md", kInBlock, "xq,xk",
     "applyRotaryEmbeddings results, xq: {xq}, xk: {xk}"},
    {StageId::CacheWrite, "cache_write", 11, "Writing xk and xv into the KV cache", kLoop, kInBlock, "xk,xv",
     "Writing xk {xk} and xv {xv} into CacheK[{layer}] and CacheV[{layer}] {cacheK} at positions [{startPos}, {endPos})"},
    {StageId::CacheRead, "cache_read", 11, "Reading keys and values back from the KV cache", kLoop, kInBlock, "keys,values",
     "Reading cached positions [0, {endPos}): keys: {keys}, values: {values}"},
    {StageId::RepeatKV, "repeat_kv", 11, "Repeating KV heads (attentionRepeatKV)", kForward, kInBlock, "keys,values",
     "attentionRepeatKV with N_Rep = {N_Rep} ({N_Heads} query heads / {N_KVHeads} KV heads), keys: {keys}, values: {values}",
     "attentionRepeatKV skipped: N_Rep = 1 (N_KVHeads = N_Heads = {N_Heads}), keys: {keys}, values: {values}"},
    {StageId::Transposes, "transposes", 12, "Transposing xq, keys and values", kForward, kInBlock, "xq,keys,values",
     "Multiple transposing results, xq: {xq}, keys: {keys}, values: {values}"},
    {StageId::ScoresMatMul, "scores_matmul", 13, "Scores: xq x keys", kForward, kInBlock, "xqMatMulKeys",
     "Calling ml.MatMul for xq {xq} and keys {keys} -> tensor xqMatMulKeys"},
    {StageId::ScoresScale, "scores_scale", 13, "Scores: dividing by sqrt(HeadDim)", kForward, kInBlock, "scores",
     "Calling ml.DivToScalar for xqMatMulKeys {xqMatMulKeys} and scalar -> tensor scores"},
    {StageId::ScoresMask, "scores_mask", 13, "Scores: adding the mask", kForward, kInBlock, "scores",
     "Calling ml.Add to calculate scores {scores} + mask {mask} -> tensor scores", "Skipping addition scores + mask"},
    {StageId::ScoresSoftmax, "scores_softmax", 13, "Scores: softmax", kForward, kInBlock, "scores",
     "Converting scores tensor {scores} to Float32 tensor -> tensor scores\n"
     "Calling ml.Softmax for scores {scores} and dim {dim} -> tensor scores\n"
     "Converting scores tensor {scores} to BFloat16 tensor -> tensor scores"},
    {StageId::AttentionValues, "attention_values", 14, "Attention output: scores x values", kForward, kInBlock, "output",
     "Calling ml.MatMul for scores {scores} and values {values} -> tensor output"},
    {StageId::AttentionReshape, "attention_reshape", 14, "Attention output: transpose and reshape", kForward, kInBlock, "output",
     "Transposing and reshaping output -> tensor output {output}"},
    {StageId::AttentionWo, "attention_wo", 14, "Attention output: attn_wo projection", kForward, kInBlock, "output",
     "Calling ml.LinearTransformation for output {output} and LlamaAttention.attn_wo weights {attn_wo} -> tensor output\n"
     "Returning tensor output: {output}"},
    {StageId::AttentionResidual, "attention_residual", 15, "Adding attention output to the residual", kForward, kInBlock, "h",
     "Calling ml.Add to calculate x {x} + h {h} -> tensor h"},
    {StageId::FfnNorm, "ffn_norm", 16, "Feed-forward pre-normalization", kForward, kInBlock, "normalizedH",
     "Calling RMSNorm for tensor h {h} and LlamaTransformerBlock.ffn_norm weights {ffn_norm} -> tensor normalizedH"},
    {StageId::FfnGate, "ffn_gate", 17, "Feed-forward: ffn_gate", kForward, kInBlock, "h",
     "Calling ml.LinearTransformation for x {x} and LlamaFeedForward.ffn_gate weights {ffn_gate} -> tensor h"},
    {StageId::FfnSilu, "ffn_silu", 17, "Feed-forward: SiLU", kForward, kInBlock, "h", "Calling ml.Silu for h {h} -> tensor h"},
    {StageId::FfnUp, "ffn_up", 17, "Feed-forward: ffn_up", kForward, kInBlock, "ffnUpX",
     "Calling ml.LinearTransformation for x {x} and LlamaFeedForward.ffn_up weights {ffn_up} -> tensor ffnUpX"},
    {StageId::FfnMultiply, "ffn_multiply", 17, "Feed-forward: silu(gate) * up", kForward, kInBlock, "h",
     "Calling ml.MultiplyElementwise for h {h} and ffnUpX weights {ffnUpX} -> tensor ffnUpX"},
    {StageId::FfnDown, "ffn_down", 17, "Feed-forward: ffn_down", kForward, kInBlock, "output",
     "Calling ml.LinearTransformation for h {h} and LlamaFeedForward.ffn_down weights {ffn_down} -> tensor output"},
    {StageId::FfnResidual, "ffn_residual", 18, "Adding feed-forward output to the residual", kForward, kInBlock, "output",
     "Calling ml.Add to calculate h {h} + ffnOutput {ffnOutput} -> tensor output\n"
     "Returning tensor output: {output}"},
    {StageId::OutputNorm, "output_norm", 19, "Output: final normalization", kOutput, kOutside, "currentTensor",
     "Calling RMSNorm for currentTensor {currentTensor} (result of all transformer blocks) and LlamaTransformer.output_norm weights "
     "{output_norm} -> tensor currentTensor"},
    {StageId::OutputProjection, "output_projection", 19, "Output: projection to the vocabulary", kOutput, kOutside, "output",
     "Calling ml.LinearTransformation for currentTensor (normalized result of all transformer blocks) {currentTensor} and "
     "LlamaTransformer.output weights {outputWeights} -> tensor output"},
    {StageId::Logits, "logits", 19, "Output: logits as Float32", kOutput, kOutside, "logits",
     "Converting output tensor {output} to Float32 tensor -> tensor output\n"
     "Returning tensor output: {logits}"},
    {StageId::Sample, "sample", 20, "Sampling the next token and appending it", kOutput, kOutside, "logits,next",
     "Sampled next token {token} {piece:?} from logits {logits} ({method})",
     "Dry run: no logits were computed, so token {token} is picked as a fixed stand-in"},
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
