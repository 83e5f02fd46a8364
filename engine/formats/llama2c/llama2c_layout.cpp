#include "formats/llama2c/llama2c_layout.h"

#include <fmt/format.h>

namespace llama {

int64_t Llama2cArray::numel() const { return shapeNumel(shape); }

int64_t Llama2cArray::fileBytes(int32_t groupSize) const {
    if (kind != Kind::Int8Groups) return 4 * numel();
    return numel() + 4 * (numel() / groupSize);
}

std::vector<Llama2cArray> llama2cLayout(const Llama2cHeader& h) {
    using Kind = Llama2cArray::Kind;
    const int64_t dim = h.dim, hidden = h.hiddenDim, vocab = h.vocabSize, headDim = h.dim / h.nHeads;
    const int64_t kvDim = headDim * h.nKvHeads;
    const Kind matrix = h.version == 2 ? Kind::Int8Groups : Kind::F32;
    std::vector<Llama2cArray> out;
    auto perLayer = [&](const char* suffix, Shape shape, Kind kind) {
        for (int i = 0; i < h.nLayers; ++i) out.push_back({fmt::format("layers.{}.{}", i, suffix), shape, kind});
    };
    auto matrices = [&] {
        perLayer("attention.wq.weight", {dim, dim}, matrix);
        perLayer("attention.wk.weight", {kvDim, dim}, matrix);
        perLayer("attention.wv.weight", {kvDim, dim}, matrix);
        perLayer("attention.wo.weight", {dim, dim}, matrix);
    };
    auto ffn = [&] {
        perLayer("feed_forward.w1.weight", {hidden, dim}, matrix);
        perLayer("feed_forward.w2.weight", {dim, hidden}, matrix);
        perLayer("feed_forward.w3.weight", {hidden, dim}, matrix);
    };
    if (h.version == 0) {
        out.push_back({"tok_embeddings.weight", {vocab, dim}, Kind::F32});
        perLayer("attention_norm.weight", {dim}, Kind::F32);
        matrices();
        perLayer("ffn_norm.weight", {dim}, Kind::F32);
        ffn();
        out.push_back({"norm.weight", {dim}, Kind::F32});
        out.push_back({"freqs_cos", {h.seqLen, headDim / 2}, Kind::RopeTable});
        out.push_back({"freqs_sin", {h.seqLen, headDim / 2}, Kind::RopeTable});
    } else {
        perLayer("attention_norm.weight", {dim}, Kind::F32);
        perLayer("ffn_norm.weight", {dim}, Kind::F32);
        out.push_back({"norm.weight", {dim}, Kind::F32});
        out.push_back({"tok_embeddings.weight", {vocab, dim}, matrix});
        matrices();
        ffn();
    }
    if (!h.sharedClassifier) out.push_back({"output.weight", {vocab, dim}, matrix});
    return out;
}

int64_t llama2cFileBytes(const Llama2cHeader& h) {
    int64_t bytes = int64_t(h.dataOffset);
    for (const Llama2cArray& a : llama2cLayout(h)) bytes += a.fileBytes(h.groupSize);
    return bytes;
}

}  // namespace llama
