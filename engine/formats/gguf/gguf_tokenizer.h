#pragma once
// The tokenizer a GGUF file carries in its tokenizer.ggml.* metadata, read and written.
//
// "gpt2" (Llama 3): byte-level BPE. tokenizer.ggml.tokens holds every token as GPT-2's
// byte-to-unicode string (each byte shown as one printable character, e.g. a space as "Ġ"),
// control tokens (token_type 3: <|begin_of_text|> ...) as plain text; tokenizer.ggml.merges
// the BPE merges "left right" in priority order. For Llama 3 the ids are tiktoken's ranks, so
// we build a TiktokenTokenizer from the tokens in id order, after checking that the merges
// agree with that order (every merge joins two tokens, results in id order).
// "llama" (Llama 2): SentencePiece pieces with tokenizer.ggml.scores and token types, read
// into an SpmScoresTokenizer (spm_scores_tokenizer.h); add_space_prefix defaults to true.
#include <memory>

#include "formats/gguf/gguf_file.h"
#include "formats/gguf/gguf_writer.h"
#include "tokenizer/spm_scores_tokenizer.h"
#include "tokenizer/tiktoken_tokenizer.h"

namespace llama {

std::shared_ptr<const Tokenizer> loadGgufTokenizer(const GgufFile& file);

// tokenizer.ggml.model = "gpt2", pre = "llama-bpe", tokens, token_type, merges and the
// bos/eos ids, as llama.cpp's convert_hf_to_gguf.py writes them for a Llama 3 model: the
// merges are those Hugging Face's tiktoken converter derives (every split of a token into
// two tokens, ordered by the token's rank, then by the parts' ranks).
void addGgufTokenizer(GgufWriter& writer, const TiktokenTokenizer& tokenizer);
// tokenizer.ggml.model = "llama": the pieces, scores and token types, bos/eos and
// add_space_prefix, as loadGgufTokenizer reads them back (a Llama 2 vocabulary).
void addGgufTokenizer(GgufWriter& writer, const SpmScoresTokenizer& tokenizer);

}  // namespace llama
