#pragma once
// Hugging Face's config.json for LlamaForCausalLM, read into our ModelArgs (Meta's names).
#include <string>

#include "model/model_args.h"

namespace llama {

struct HfConfig {
    ModelArgs args;
    bool tieWordEmbeddings = false;  // lm_head is the embedding matrix (no lm_head.weight)
    std::string torchDtype;          // "bfloat16", "float16", ... as stated (informational)
};

// Errors name the file and the field. rope_scaling must be absent or rope_type "llama3"
// with Llama 3.1's constants (low/high_freq_factor 1/4, original context 8192) and any factor
// (8 for Llama 3.1, 32 for 3.2 1B/3B), the only scaling our RoPE implements.
HfConfig loadHfConfig(const std::string& path);

}  // namespace llama
