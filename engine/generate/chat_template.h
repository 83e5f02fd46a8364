#pragma once
// Builds what the model sees: the instruct template (--chat) or the raw prompt after BOS
// (--completion). Llama 3 marks turns with header tokens; Llama 2 wraps the user's message in
// [INST] ... [/INST], with the system prompt inside <<SYS>> ... <</SYS>> (Meta's chat_completion).
//
// The template's own control tokens are kept apart from the text people typed: in chat mode a
// user who writes "<|eot_id|>" gets those characters as text, not the end of their turn (as
// llama.cpp's and Hugging Face's chat paths treat it), unless the caller allows special tokens.
// A completion prompt is raw text: special-token text in it is a control token, as the
// walkthrough's own prompts use it.
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace llama {

enum class PromptMode { Chat, Completion };
enum class ChatFormat { Llama3, Llama2 };

// By tokenizer family: Llama 3's has <|start_header_id|>, Llama 2's has <s> and no such token.
ChatFormat chatFormatFor(const Tokenizer& tokenizer);

struct Prompt {
    struct Part {
        std::string text;
        bool control;  // one of the template's special tokens ("<|eot_id|>", "<s>")
    };
    std::vector<Part> parts;
    bool specialsInText = true;  // special-token text in the other parts becomes control tokens

    // A raw prompt: all text, special-token text recognised (what a completion prompt is).
    Prompt(std::string text) : parts{{std::move(text), false}} {}
    Prompt(const char* text) : Prompt(std::string(text)) {}
    Prompt(std::vector<Part> parts, bool specialsInText) : parts(std::move(parts)), specialsInText(specialsInText) {}

    std::string text() const;
    // The tokens: each control part as its id, the text between them encoded as one piece, so
    // the boundaries are those a whole-text encoding would have.
    std::vector<int32_t> encode(const Tokenizer& tokenizer) const;
};

// No default format: a Llama 2 model given Llama 3's <|begin_of_text|> would read it as text.
// `allowSpecial`: in chat mode, special-token text in `system` and `user` becomes control tokens.
// In completion mode `system` is text before `user` (so `batch --system` is a shared prefix).
Prompt formatPrompt(PromptMode mode, const std::string& system, const std::string& user, ChatFormat format, bool allowSpecial);
// A later exchange of a Llama 3 conversation: the user's next turn and the assistant's open
// header, which follow the previous reply's <|eot_id|> (so no <|begin_of_text|>). formatPrompt
// gives the first.
Prompt formatFollowUp(const std::string& user, bool allowSpecial);

}  // namespace llama
