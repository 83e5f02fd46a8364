#pragma once
// Chat examples for supervised fine-tuning, from a file of JSON lines, one example a line:
//   {"messages": [{"role": "user", "content": "Quote Genesis 1:3."},
//                 {"role": "assistant", "content": "And God said, Let there be light: and there was light."}]}
// (a "system" message may come first; several exchanges, a user message then the assistant's
// reply each, may follow one another). The first exchange is encoded as the walkthrough's --chat
// encodes a prompt (generate/chat_template.h: <|begin_of_text|>, the turns, the assistant's open
// header), then the assistant's reply and <|eot_id|>: the tokens the model should write after
// that prompt; each later exchange follows it, its user turn and open header, its reply and
// <|eot_id|>. Only the replies and their <|eot_id|> are scored; the rest is context, not
// something to learn.
#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"
#include "train/training_step.h"

namespace llama {

struct ChatExamples {
    std::vector<TrainingWindow> windows;  // one per example: its tokens, targets -1 but the replies'
    int64_t tokens = 0;                   // the examples' tokens
    int64_t scored = 0;                   // of which the replies' (and their <|eot_id|>s)
};

// Errors name the file and the line: an empty file, a line that is not JSON, an example that is
// not user and assistant messages in turn ending with the assistant's, an example longer than maxTokens + 1 tokens (a
// window of maxTokens inputs and their next tokens), a tokenizer without Llama 3's chat tokens.
ChatExamples readChatExamples(const std::string& path, const char* role, const Tokenizer& tokenizer, int maxTokens);

}  // namespace llama
