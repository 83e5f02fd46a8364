#pragma once
// A model in Meta's official layout: a directory with params.json, consolidated.00.pth and
// tokenizer.model.
#include <memory>
#include <string>

#include "formats/named_tensor.h"
#include "model/model.h"

namespace llama {

// Errors name the directory and the file. progress(done, total) follows the weights being read
// into memory.
Model loadMetaModel(const std::string& dir, const LoadProgress& progress = {});

// A Meta directory's tokenizer.model, either family: Llama 3's tiktoken file or Llama 2's
// SentencePiece model (told apart by content). Checks it against params.json's vocab_size,
// and fills that in when params.json left it to the tokenizer (-1, as Llama 2's does).
std::shared_ptr<const Tokenizer> loadMetaTokenizer(const std::string& dir, ModelArgs& args);

}  // namespace llama
