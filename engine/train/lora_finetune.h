#pragma once
// LoRA fine-tuning (train --lora-rank, model/lora.h): a new adapter on a loaded model, whose own
// weights stay frozen while AdamW trains the adapter's A and B (model/gradients.h).
#include <cstdint>
#include <string>
#include <vector>

#include "model/lora.h"
#include "model/model.h"

namespace llama {

// "wq,wk,wv,wo,w1,w2,w3" (Meta's names of a block's matrices, any subset) -> the names within a
// block ("attention.wq.weight"); throws std::invalid_argument naming an unknown one.
std::vector<std::string> parseLoraTargets(const std::string& text);

// A new adapter on every block's targets: A [rank, in] drawn uniformly from ±1/sqrt(in) (PEFT's
// kaiming_uniform_(a=sqrt(5)), torch.nn.Linear's default), B [out, rank] zero, so the adapted
// model starts as the model itself. Seeded: the same bits on every machine. trained is set.
LoraAdapter newLoraAdapter(const Model& model, int rank, float alpha, const std::vector<std::string>& targets, uint64_t seed);

// The model's weights as F32, the dtype the backward pass computes in (BF16 ones widened; F32
// ones kept as they are). Throws naming a quantized weight.
void widenWeightsToF32(Model& model);

}  // namespace llama
