#pragma once
// Recognises a model on disk and loads it: Meta's official layout (a directory with
// consolidated.00.pth, params.json and tokenizer.model), Hugging Face's (hf_loader.h), a GGUF
// file (gguf_model.h) or a llama2.c checkpoint with the tokenizer.bin beside it (llama2c_model.h).
#include <memory>
#include <string>

#include "formats/meta/torch_checkpoint.h"
#include "model/model.h"

namespace llama {

// Errors name the path and what was looked for. progress(done, total) follows the weights
// being read into memory.
Model loadModel(const std::string& path, const LoadProgress& progress = {});

// A regular file named *.gguf or starting with GGUF's magic.
bool isGgufFile(const std::string& path);

Model loadMetaModel(const std::string& dir, const LoadProgress& progress = {});

// A Meta directory's tokenizer.model, either family: Llama 3's tiktoken file or Llama 2's
// SentencePiece model (told apart by content). Checks it against params.json's vocab_size,
// and fills that in when params.json left it to the tokenizer (-1, as Llama 2's does).
std::shared_ptr<const Tokenizer> loadMetaTokenizer(const std::string& dir, ModelArgs& args);

// A tokenizer file of any family, told apart by content: Hugging Face's tokenizer.json (JSON;
// with tokenizer_config.json when one is beside it), Llama 2's SentencePiece tokenizer.model or
// Llama 3's tiktoken tokenizer.model. Errors name the file.
std::shared_ptr<const Tokenizer> loadTokenizerFile(const std::string& path);

}  // namespace llama
