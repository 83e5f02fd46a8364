#include "formats/gguf/gguf_llama.h"

#include <utility>

#include "formats/layer_name.h"
#include "model/rope.h"

namespace llama {

namespace {

// (GGUF, Meta) for the per-layer weights, then for the rest.
const std::pair<const char*, const char*> kLayerNames[] = {
    {"attn_q.weight", "attention.wq.weight"},  {"attn_k.weight", "attention.wk.weight"},
    {"attn_v.weight", "attention.wv.weight"},  {"attn_output.weight", "attention.wo.weight"},
    {"ffn_gate.weight", "feed_forward.w1.weight"}, {"ffn_down.weight", "feed_forward.w2.weight"},
    {"ffn_up.weight", "feed_forward.w3.weight"},   {"attn_norm.weight", "attention_norm.weight"},
    {"ffn_norm.weight", "ffn_norm.weight"},
};
const std::pair<const char*, const char*> kGlobalNames[] = {
    {"token_embd.weight", "tok_embeddings.weight"}, {"output_norm.weight", "norm.weight"}, {"output.weight", "output.weight"}};

std::optional<std::string> translate(const std::string& name, bool toMeta) {
    for (const auto& [g, m] : kGlobalNames)
        if (name == (toMeta ? g : m)) return toMeta ? m : g;
    const auto layer = splitLayerName(name, toMeta ? "blk." : "layers.");
    if (!layer) return std::nullopt;
    for (const auto& [g, m] : kLayerNames)
        if (layer->second == (toMeta ? g : m)) return (toMeta ? "layers." : "blk.") + layer->first + "." + (toMeta ? m : g);
    return std::nullopt;
}

}  // namespace

std::optional<std::string> metaNameOfGguf(const std::string& name) { return translate(name, true); }
std::optional<std::string> ggufNameOfMeta(const std::string& name) { return translate(name, false); }

std::vector<float> llama31RopeFactors(int headDim, double theta, float scaleFactor) {
    std::vector<float> freqs = ropeFrequencies(headDim, theta);
    std::vector<float> scaled = freqs;
    applyRopeScaling(scaled, scaleFactor);
    for (size_t i = 0; i < freqs.size(); ++i) freqs[i] /= scaled[i];
    return freqs;
}

}  // namespace llama
