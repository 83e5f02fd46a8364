#pragma once
// llama2.c's tokenizer.bin (written by its tokenizer.py, read by run.c): int32 max_token_length,
// then for every token a float32 score, an int32 byte length and the piece's bytes. The count is
// not stored: run.c reads as many tokens as the checkpoint's vocab_size. SentencePiece's "▁" is
// stored as a space, and BOS/EOS as "\n<s>\n" and "\n</s>\n". There are no merges: run.c encodes
// by merging the best-scoring adjacent pair, which is SpmScoresTokenizer's algorithm, so the file
// becomes one of those (pieces back in SentencePiece's spelling, token types from the pieces).
#include <memory>
#include <string>

#include "tokenizer/spm_scores_tokenizer.h"

namespace llama {

// Reads `path`, which must hold exactly `vocabSize` tokens (the checkpoint's). Errors name the
// file, the token and the byte offset.
std::shared_ptr<const SpmScoresTokenizer> loadLlama2cTokenizer(const std::string& path, int32_t vocabSize);

// Writes `tokenizer` as tokenizer.bin. Throws std::invalid_argument, naming what does not fit,
// for a vocabulary run.c cannot encode with (its encoder knows pieces and scores only, so a BPE
// vocabulary with merges, such as Llama 3's tiktoken, does not fit).
void writeLlama2cTokenizer(const Tokenizer& tokenizer, const std::string& path);

}  // namespace llama
