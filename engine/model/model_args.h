#pragma once
// Hyper-parameters as Meta's params.json names them, plus the sizes derived from them.
#include <optional>
#include <string>

namespace llama {

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

    // Throws std::invalid_argument naming the field when the args cannot describe a Llama model.
    // Llama 2's params.json leaves the vocabulary to the tokenizer (vocab_size -1).
    enum class VocabSize { Stated, MayComeFromTokenizer };
    void validate(const std::string& source, VocabSize vocab = VocabSize::Stated) const;
};

}  // namespace llama
