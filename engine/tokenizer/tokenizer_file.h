#pragma once
// A tokenizer file of any family, for a model that does not bring its own (--tokenizer).
#include <memory>
#include <string>

#include "tokenizer/tokenizer.h"

namespace llama {

// Told apart by content: Hugging Face's tokenizer.json (JSON; with tokenizer_config.json when
// one is beside it), Llama 2's SentencePiece tokenizer.model or Llama 3's tiktoken
// tokenizer.model. Errors name the file.
std::shared_ptr<const Tokenizer> loadTokenizerFile(const std::string& path);

}  // namespace llama
