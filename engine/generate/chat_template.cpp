#include "generate/chat_template.h"

namespace llama {

namespace {
std::string message(const std::string& role, const std::string& content) {
    return "<|start_header_id|>" + role + "<|end_header_id|>\n\n" + content + "<|eot_id|>";
}
}  // namespace

std::string formatPrompt(PromptMode mode, const std::string& system, const std::string& user) {
    std::string text = "<|begin_of_text|>";
    if (mode == PromptMode::Completion) return text + user;
    if (!system.empty()) text += message("system", system);
    text += message("user", user);
    // The assistant's header is left open: the model writes the reply and ends it with <|eot_id|>.
    return text + "<|start_header_id|>assistant<|end_header_id|>\n\n";
}

}  // namespace llama
