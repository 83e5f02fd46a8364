#include "formats/hf/hf_weights.h"

#include <cstring>
#include <map>
#include <stdexcept>

#include "formats/layer_name.h"

namespace llama {

std::optional<std::string> metaTensorName(const std::string& hfName) {
    static const std::map<std::string, std::string> global = {
        {"model.embed_tokens.weight", "tok_embeddings.weight"},
        {"model.norm.weight", "norm.weight"},
        {"lm_head.weight", "output.weight"},
    };
    static const std::map<std::string, std::string> perLayer = {
        {"self_attn.q_proj.weight", "attention.wq.weight"}, {"self_attn.k_proj.weight", "attention.wk.weight"},
        {"self_attn.v_proj.weight", "attention.wv.weight"}, {"self_attn.o_proj.weight", "attention.wo.weight"},
        {"mlp.gate_proj.weight", "feed_forward.w1.weight"}, {"mlp.down_proj.weight", "feed_forward.w2.weight"},
        {"mlp.up_proj.weight", "feed_forward.w3.weight"},   {"input_layernorm.weight", "attention_norm.weight"},
        {"post_attention_layernorm.weight", "ffn_norm.weight"},
    };
    if (auto it = global.find(hfName); it != global.end()) return it->second;
    const auto layer = splitLayerName(hfName, "model.layers.");
    if (!layer) return std::nullopt;
    auto it = perLayer.find(layer->second);
    if (it == perLayer.end()) return std::nullopt;
    return "layers." + layer->first + "." + it->second;
}

namespace {

// out row (h, 2i+s) <-> in row (h, s*half+i), or the reverse.
Tensor reorderRows(const Tensor& w, int nHeads, bool toHf) {
    if (w.rank() != 2 || w.dim(0) % (2 * nHeads))
        throw std::invalid_argument("q/k projection " + w.shapeStr() + " does not split into " + std::to_string(nHeads) +
                                    " heads of even size");
    const int64_t headDim = w.dim(0) / nHeads, half = headDim / 2;
    const size_t rowBytes = w.byteSize() / size_t(w.dim(0));
    Tensor out(w.shape(), w.dtype());
    const auto* src = static_cast<const unsigned char*>(w.rawData());
    auto* dst = out.mutableData<unsigned char>();
    for (int64_t h = 0; h < nHeads; ++h)
        for (int64_t i = 0; i < half; ++i)
            for (int64_t s = 0; s < 2; ++s) {
                const int64_t meta = h * headDim + 2 * i + s, hf = h * headDim + s * half + i;
                const int64_t from = toHf ? meta : hf, to = toHf ? hf : meta;
                std::memcpy(dst + to * rowBytes, src + from * rowBytes, rowBytes);
            }
    return out;
}

}  // namespace

Tensor permuteRowsForRotateHalf(const Tensor& metaWeight, int nHeads) { return reorderRows(metaWeight, nHeads, true); }
Tensor unpermuteRowsFromRotateHalf(const Tensor& hfWeight, int nHeads) { return reorderRows(hfWeight, nHeads, false); }

}  // namespace llama
