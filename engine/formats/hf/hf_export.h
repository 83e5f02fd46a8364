#pragma once
// Writes a loaded model as a Hugging Face directory, the way Hugging Face's conversion script
// lays a Llama 3 model out (`llama-walkthrough convert --to safetensors`, and the tests, which
// load the result back to check the whole Hugging Face path):
//   model.safetensors      weights under HF's names, wq/wk rows permuted for rotate-half RoPE
//   config.json            LlamaForCausalLM hyper-parameters (intermediate_size stated)
//   tokenizer.json         byte-level BPE: vocabulary spelled in GPT-2's byte alphabet, merges
//                          derived from tiktoken's ranks as transformers' TikTokenConverter does
//   tokenizer_config.json  bos/eos tokens and Llama 3's chat template
// Needs BF16 or F32 weights and a tiktoken (Llama 3) tokenizer; anything else is refused by name.
// The name map is spelled out here rather than inverted from the loader's, so that a mistake
// in one is not silently mirrored by the other.
#include <string>
#include <utility>
#include <vector>

#include "model/model.h"

namespace llama {

// safetensors: u64 header length, the JSON header padded with spaces to 8 bytes, the data.
void writeSafetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors);

void exportHf(const Model& model, const std::string& outDir);

}  // namespace llama
