#include "generate/chat_template.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "tokenizer/utf8.h"

namespace llama {

namespace {

// Llama 3's turn: header tokens around the role, the content, <|eot_id|>.
void addMessage(std::vector<Prompt::Part>& parts, const std::string& role, const std::string& content) {
    parts.insert(parts.end(), {{"<|start_header_id|>", true}, {role, false}, {"<|end_header_id|>", true}, {"\n\n" + content, false},
                               {"<|eot_id|>", true}});
}

// The user's turn, then the assistant's header left open: the model writes the reply and ends it
// with <|eot_id|>.
void addUserTurn(std::vector<Prompt::Part>& parts, const std::string& user) {
    addMessage(parts, "user", user);
    parts.insert(parts.end(), {{"<|start_header_id|>", true}, {"assistant", false}, {"<|end_header_id|>", true}, {"\n\n", false}});
}

// Checked here, where an offset still counts within what was typed; the tokenizer would count
// from the start of the whole template.
void requireUtf8(const char* name, const std::string& text) {
    if (const auto bad = firstInvalidUtf8(text))
        throw std::invalid_argument(fmt::format("the {} is not valid UTF-8: byte 0x{:02X} at byte offset {}", name, static_cast<unsigned char>(text[*bad]), *bad));
}

}  // namespace

ChatFormat chatFormatFor(const Tokenizer& tokenizer) {
    if (!tokenizer.specialId("<|start_header_id|>") && tokenizer.specialId("<s>")) return ChatFormat::Llama2;
    return ChatFormat::Llama3;
}

std::string Prompt::text() const {
    std::string out;
    for (const Part& p : parts) out += p.text;
    return out;
}

std::vector<int32_t> Prompt::encode(const Tokenizer& tokenizer) const {
    std::vector<int32_t> ids;
    std::string pending;
    auto flush = [&] {
        if (pending.empty()) return;
        auto more = tokenizer.encode(pending, specialsInText);
        ids.insert(ids.end(), more.begin(), more.end());
        pending.clear();
    };
    for (const Part& p : parts) {
        if (!p.control) {
            pending += p.text;
            continue;
        }
        flush();
        auto id = tokenizer.specialId(p.text);
        if (!id) throw std::invalid_argument("the tokenizer has no special token " + p.text + " for the chat template");
        ids.push_back(*id);
    }
    flush();
    return ids;
}

Prompt formatPrompt(PromptMode mode, const std::string& system, const std::string& user, ChatFormat format, bool allowSpecial) {
    requireUtf8("prompt", user);
    requireUtf8("system prompt", system);
    const bool llama2 = format == ChatFormat::Llama2;
    std::vector<Prompt::Part> parts{{llama2 ? "<s>" : "<|begin_of_text|>", true}};
    if (mode == PromptMode::Completion) {
        parts.push_back({system + user, false});
        return Prompt(std::move(parts), true);
    }
    if (llama2) {
        const std::string content = system.empty() ? user : "<<SYS>>\n" + system + "\n<</SYS>>\n\n" + user;
        parts.push_back({"[INST] " + content + " [/INST]", false});
    } else {
        if (!system.empty()) addMessage(parts, "system", system);
        addUserTurn(parts, user);
    }
    return Prompt(std::move(parts), allowSpecial);
}

Prompt formatFollowUp(const std::string& user, bool allowSpecial) {
    requireUtf8("prompt", user);
    std::vector<Prompt::Part> parts;
    addUserTurn(parts, user);
    return Prompt(std::move(parts), allowSpecial);
}

}  // namespace llama
