#pragma once
// `llama-walkthrough train --model BASE --lora-rank R --text FILE --out DIR`: LoRA fine-tuning
// (engine/train/lora_finetune.h). The base model's weights stay frozen; AdamW trains a new
// adapter's A and B with train's recipe, and DIR gets the adapter in llama.cpp's GGUF LoRA layout
// (adapter.gguf, for this engine's and llama-cli's --lora) and the loss (log.jsonl, loss.html).
#include "train_command.h"

namespace llama::cli {

int runLoraTrain(const TrainOptions& options);

}  // namespace llama::cli
