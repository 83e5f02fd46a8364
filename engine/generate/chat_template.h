#pragma once
// Builds the text the model sees: the instruct template (--chat) or the raw prompt after BOS
// (--completion). Llama 3 marks turns with header tokens; Llama 2 wraps the user's message in
// [INST] ... [/INST], with the system prompt inside <<SYS>> ... <</SYS>> (Meta's chat_completion).
#include <string>

#include "tokenizer/tokenizer.h"

namespace llama {

enum class PromptMode { Chat, Completion };
enum class ChatFormat { Llama3, Llama2 };

// By tokenizer family: Llama 3's has <|start_header_id|>, Llama 2's has <s> and no such token.
ChatFormat chatFormatFor(const Tokenizer& tokenizer);

// No default format: a Llama 2 model given Llama 3's <|begin_of_text|> would read it as text.
std::string formatPrompt(PromptMode mode, const std::string& system, const std::string& user, ChatFormat format);

}  // namespace llama
