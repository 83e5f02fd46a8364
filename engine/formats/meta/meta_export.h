#pragma once
// Writes a loaded model in Meta's layout, the one loadMetaModel (meta_model.h) and Meta's own
// reference code read (`llama-walkthrough convert --to meta` and `--to meta-f32`):
//   consolidated.00.pth  the weights under Meta's names (every loader names them so), as torch.save
//                        writes a state dict (torch_save.h)
//   params.json          the hyper-parameters in Meta's keys (params_json.h)
//   tokenizer.model      Llama 3's tiktoken ranks, or Llama 2's SentencePiece model as it was read
// Meta's layout has no place for the 256 special tokens' names: whoever reads it gives them
// Llama 3.1's. A tokenizer Meta's layout cannot hold (a vocabulary known only from a GGUF or
// llama2.c file's scores, a Hugging Face tokenizer.json) is refused by name, before anything is
// written, as are args params.json cannot state.
#include <string>

#include "model/model.h"

namespace llama {

// `dtype`: BF16 (Meta's own checkpoints) or F32 (training checkpoints, which must not round).
// `outDir` is created if missing; each file is written atomically.
void exportMeta(const Model& model, DType dtype, const std::string& outDir);

}  // namespace llama
