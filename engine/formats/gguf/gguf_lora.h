#pragma once
// llama.cpp's GGUF LoRA adapters (convert_lora_to_gguf.py writes them, `llama-cli --lora FILE`
// and `--lora-scaled FILE SCALE` read them; src/llama-adapter.cpp at c392e5094):
//   general.type "adapter", general.architecture "llama", adapter.type "lora",
//   adapter.lora.alpha (F32),
//   per adapted weight W ("blk.0.attn_q.weight", ggml ne {in, out}) two tensors,
//   "<W's name>.lora_a" with ne {in, rank} (row-major [rank, in], PyTorch's lora_A.weight) and
//   "<W's name>.lora_b" with ne {rank, out} ([out, rank], lora_B.weight).
// llama.cpp skips tensors named *_norm.weight (mergekit's); so do we. Q and K rows are in Meta's
// order in a Llama GGUF (gguf_llama.h), so A and B apply to this engine's W as they are.
// Read strictly, against the model they are for: a general.type, architecture or adapter.type
// that is not the above, a missing alpha, a tensor of another name or dtype (F32, F16 and BF16
// are read), a pair without its partner, a rank that differs between A and B, a W the model does
// not have or of another shape, or a NaN or infinity are refused, naming the file, the tensor and
// both shapes.
#include <string>

#include "model/lora.h"
#include "model/model.h"

namespace llama {

// The adapter in `file`, its pairs by W's name in Meta's layout, F32; throws std::runtime_error.
LoraAdapter readLoraAdapter(const LoraFile& file, const Model& model);
// Writes `adapter` (its pairs F32) in llama.cpp's layout, atomically; throws naming the path.
void writeLoraAdapter(const std::string& path, const LoraAdapter& adapter);

}  // namespace llama
