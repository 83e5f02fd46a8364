#pragma once
// Meta's params.json: the hyper-parameters of a consolidated.*.pth checkpoint.
#include <string>

#include "model/model_args.h"

namespace llama {

// Errors name the file and the field. vocab_size may be -1 (Llama 2: the tokenizer's size,
// which the caller must fill in).
ModelArgs loadParamsJson(const std::string& path);

// params.json's text for `args`, in Meta's keys and order (dim, n_layers, n_heads, n_kv_heads,
// vocab_size, multiple_of, ffn_dim_multiplier, norm_eps, rope_theta, use_scaled_rope), which
// loadParamsJson reads back to the same model. params.json can state the FFN width only through
// Meta's formula, so args that state it outright (ffn_hidden_dim: from GGUF, Hugging Face or
// llama2.c) get the plainest multiple_of and ffn_dim_multiplier that give exactly that width.
// Throws std::invalid_argument naming `source` when no such values exist, or when RoPE scaling's
// factor is not the 8 that a reader of params.json assumes.
std::string paramsJsonText(const ModelArgs& args, const std::string& source);

}  // namespace llama
