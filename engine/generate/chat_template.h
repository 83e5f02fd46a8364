#pragma once
// Builds the text the model sees: Llama 3's instruct template (--chat) or the raw prompt after
// <|begin_of_text|> (--completion).
#include <string>

namespace llama {

enum class PromptMode { Chat, Completion };

std::string formatPrompt(PromptMode mode, const std::string& system, const std::string& user);

}  // namespace llama
