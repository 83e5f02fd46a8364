#include "train/chat_examples.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

#include "generate/chat_template.h"
#include "io/input_file.h"
#include "io/json_file.h"

namespace llama {

namespace {

// An example's messages: a system message or none, then exchanges of a user message and the
// assistant's reply.
struct Conversation {
    std::string system;
    std::vector<std::pair<std::string, std::string>> exchanges;  // user, assistant
};

// {"messages": [system?, user, assistant, user, assistant, ...]}; `where` is "'FILE' line N".
Conversation conversationOf(const nlohmann::json& example, const std::string& where) {
    if (!example.is_object() || !example.contains("messages") || !example["messages"].is_array())
        throw std::invalid_argument(fmt::format("{}: expected an object with a \"messages\" list", where));
    std::vector<std::pair<std::string, std::string>> messages;
    for (const auto& m : example["messages"]) {
        if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || !m.contains("content") || !m["content"].is_string())
            throw std::invalid_argument(fmt::format("{}: message {} needs a \"role\" and a \"content\", both strings", where, messages.size() + 1));
        messages.emplace_back(m["role"], m["content"]);
    }
    Conversation conversation;
    size_t next = 0;
    if (next < messages.size() && messages[next].first == "system") conversation.system = messages[next++].second;
    bool shaped = next < messages.size() && (messages.size() - next) % 2 == 0;
    for (size_t i = next; shaped && i < messages.size(); i += 2) {
        shaped = messages[i].first == "user" && messages[i + 1].first == "assistant";
        conversation.exchanges.emplace_back(messages[i].second, messages[i + 1].second);
    }
    if (!shaped) {
        std::string roles;
        for (const auto& [role, content] : messages) roles += (roles.empty() ? "" : ", ") + role;
        // Not std::ranges: the browser build's libc++ (Emscripten 3.1.6) has none of its algorithms.
        const bool noAssistant = std::none_of(messages.begin(), messages.end(), [](const auto& m) { return m.first == "assistant"; });
        throw std::invalid_argument(fmt::format("{}: {}; expected a user message then an assistant message, once or more in turn (a system message "
                                                "first, if any), got [{}]",
                                                where, noAssistant ? "no assistant message to learn" : "not user and assistant in turn", roles));
    }
    return conversation;
}

}  // namespace

ChatExamples readChatExamples(const std::string& path, const char* role, const Tokenizer& tokenizer, int maxTokens) {
    const std::string text = readInputFile(path, role);
    if (chatFormatFor(tokenizer) != ChatFormat::Llama3 || !tokenizer.specialId("<|eot_id|>"))
        throw std::invalid_argument("the tokenizer has no Llama 3 chat tokens (<|start_header_id|>, <|eot_id|>): fine-tuning for chat needs them");
    const int32_t eot = *tokenizer.specialId("<|eot_id|>");
    ChatExamples examples;
    forEachJsonLine(text, role, path, [&](const nlohmann::json& example, const std::string& where) {
        const Conversation conversation = conversationOf(example, where);
        // The first exchange's prompt exactly as `--chat --prompt USER [--system SYSTEM]` gives it to
        // the model, each later one's as it follows a reply; each reply and its <|eot_id|> scored.
        std::vector<int32_t> tokens;
        std::vector<bool> scored;
        for (size_t e = 0; e < conversation.exchanges.size(); ++e) {
            const auto& [user, assistant] = conversation.exchanges[e];
            const Prompt prompt = e == 0 ? formatPrompt(PromptMode::Chat, conversation.system, user, ChatFormat::Llama3, false) : formatFollowUp(user, false);
            const std::vector<int32_t> promptTokens = prompt.encode(tokenizer);
            tokens.insert(tokens.end(), promptTokens.begin(), promptTokens.end());
            scored.insert(scored.end(), promptTokens.size(), false);
            std::vector<int32_t> reply = tokenizer.encode(assistant, false);
            reply.push_back(eot);
            tokens.insert(tokens.end(), reply.begin(), reply.end());
            scored.insert(scored.end(), reply.size(), true);
        }
        if (int64_t(tokens.size()) > int64_t(maxTokens) + 1)
            throw std::invalid_argument(fmt::format("{}: the example is {} tokens, longer than a window of --seq-len {} and its next token", where,
                                                    tokens.size(), maxTokens));
        // Input i predicts token i + 1: scored when that token is a reply's.
        TrainingWindow window{std::vector<int32_t>(tokens.begin(), tokens.end() - 1), std::vector<int32_t>(tokens.begin() + 1, tokens.end())};
        for (size_t i = 0; i < window.targets.size(); ++i)
            if (!scored[i + 1]) window.targets[i] = -1;
        examples.tokens += int64_t(tokens.size());
        examples.scored += std::count(scored.begin(), scored.end(), true);
        examples.windows.push_back(std::move(window));
    });
    if (examples.windows.empty()) throw std::invalid_argument(fmt::format("{} '{}' holds no example; expected JSON lines of {{\"messages\": [...]}}", role, path));
    return examples;
}

}  // namespace llama
