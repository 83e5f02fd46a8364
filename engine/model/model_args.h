#pragma once
// Hyper-parameters as Meta's params.json names them, plus the sizes derived from them.
#include <optional>
#include <string>

namespace llama {

// What the file being checked calls each field of ModelArgs, so that errors use its words
// (config.json says num_attention_heads where params.json says n_heads).
struct ModelArgKeys {
    const char* dim = "dim";
    const char* n_layers = "n_layers";
    const char* n_heads = "n_heads";
    const char* n_kv_heads = "n_kv_heads";
    const char* vocab_size = "vocab_size";
    const char* ffn = "ffn_dim_multiplier";
    const char* norm_eps = "norm_eps";
    const char* rope_theta = "rope_theta";
    const char* max_seq_len = "max_seq_len";
};

struct ModelArgs {
    int dim = 0;
    int n_layers = 0;
    int n_heads = 0;
    int n_kv_heads = 0;  // params.json may omit it: then equal to n_heads (Llama 2 7B)
    int vocab_size = 0;
    int multiple_of = 256;
    std::optional<double> ffn_dim_multiplier;
    double norm_eps = 1e-5;
    double rope_theta = 10000.0;
    bool use_scaled_rope = false;
    double rope_scale_factor = 8.0;  // with use_scaled_rope: 8 for Llama 3.1, 32 for 3.2 1B/3B (config.json's rope_scaling.factor)
    // Hugging Face's config.json states the FFN width (intermediate_size) instead of deriving it.
    std::optional<int> ffn_hidden_dim;
    int max_seq_len = 2048;  // not in Meta's params.json: the generation's context length

    // Derived exactly as Meta's reference derives them.
    int headDim() const { return dim / n_heads; }
    int nRep() const { return n_heads / n_kv_heads; }
    int ffnHiddenDim() const;

    // Bounds far above every Llama released (405B: dim 16384, 126 layers, 128 heads, 128256
    // tokens, 131072 positions, FFN 53248) and low enough that no size derived from them
    // overflows int.
    static constexpr int kMaxDim = 1 << 16, kMaxLayers = 1024, kMaxHeads = 1024, kMaxVocab = 1 << 22, kMaxPositions = 1 << 24,
                         kMaxFfn = 1 << 20;

    // Throws std::invalid_argument naming the field when the args cannot describe a Llama model,
    // or describe one far larger than any Llama (a hostile file's 1e9 layers). Llama 2's
    // params.json leaves the vocabulary to the tokenizer (vocab_size -1).
    enum class VocabSize { Stated, MayComeFromTokenizer };
    void validate(const std::string& source, VocabSize vocab = VocabSize::Stated, const ModelArgKeys& keys = {}) const;

    // Bytes a run allocates for max_seq_len positions: the KV cache (BF16 keys and values of
    // every layer) and the RoPE table (Complex64, twice the positions, as Meta's).
    int64_t runBytes() const;
};

}  // namespace llama
