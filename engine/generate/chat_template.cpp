#include "generate/chat_template.h"

namespace llama {

namespace {
std::string message(const std::string& role, const std::string& content) {
    return "<|start_header_id|>" + role + "<|end_header_id|>\n\n" + content + "<|eot_id|>";
}
}  // namespace

ChatFormat chatFormatFor(const Tokenizer& tokenizer) {
    if (!tokenizer.specialId("<|start_header_id|>") && tokenizer.specialId("<s>")) return ChatFormat::Llama2;
    return ChatFormat::Llama3;
}

std::string formatPrompt(PromptMode mode, const std::string& system, const std::string& user, ChatFormat format) {
    if (format == ChatFormat::Llama2) {
        if (mode == PromptMode::Completion) return "<s>" + user;
        const std::string content = system.empty() ? user : "<<SYS>>\n" + system + "\n<</SYS>>\n\n" + user;
        return "<s>[INST] " + content + " [/INST]";
    }
    std::string text = "<|begin_of_text|>";
    if (mode == PromptMode::Completion) return text + user;
    if (!system.empty()) text += message("system", system);
    text += message("user", user);
    // The assistant's header is left open: the model writes the reply and ends it with <|eot_id|>.
    return text + "<|start_header_id|>assistant<|end_header_id|>\n\n";
}

}  // namespace llama
