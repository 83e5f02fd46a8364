#include "train/chat_examples.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

#include "generate/chat_template.h"
#include "io/input_file.h"

namespace llama {

namespace {

struct Turns {
    std::string system, user, assistant;
};

// {"messages": [system?, user, assistant]}; `where` is "'FILE' line N".
Turns turnsOf(const nlohmann::json& example, const std::string& where) {
    if (!example.is_object() || !example.contains("messages") || !example["messages"].is_array())
        throw std::invalid_argument(fmt::format("{}: expected an object with a \"messages\" list", where));
    std::vector<std::pair<std::string, std::string>> messages;
    for (const auto& m : example["messages"]) {
        if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || !m.contains("content") || !m["content"].is_string())
            throw std::invalid_argument(fmt::format("{}: message {} needs a \"role\" and a \"content\", both strings", where, messages.size() + 1));
        messages.emplace_back(m["role"], m["content"]);
    }
    Turns turns;
    size_t next = 0;
    if (next < messages.size() && messages[next].first == "system") turns.system = messages[next++].second;
    const bool shaped = messages.size() == next + 2 && messages[next].first == "user" && messages[next + 1].first == "assistant";
    if (!shaped) {
        std::string roles;
        for (const auto& [role, content] : messages) roles += (roles.empty() ? "" : ", ") + role;
        // Not std::ranges: the browser build's libc++ (Emscripten 3.1.6) has none of its algorithms.
        const bool noAssistant = std::none_of(messages.begin(), messages.end(), [](const auto& m) { return m.first == "assistant"; });
        throw std::invalid_argument(fmt::format("{}: {}; expected a user message then an assistant message (a system message first, if any), got [{}]",
                                                where, noAssistant ? "no assistant message to learn" : "not one exchange", roles));
    }
    turns.user = messages[next].second;
    turns.assistant = messages[next + 1].second;
    return turns;
}

}  // namespace

ChatExamples readChatExamples(const std::string& path, const char* role, const Tokenizer& tokenizer, int maxTokens) {
    const std::string text = readInputFile(path, role);
    if (chatFormatFor(tokenizer) != ChatFormat::Llama3 || !tokenizer.specialId("<|eot_id|>"))
        throw std::invalid_argument("the tokenizer has no Llama 3 chat tokens (<|start_header_id|>, <|eot_id|>): fine-tuning for chat needs them");
    const int32_t eot = *tokenizer.specialId("<|eot_id|>");
    ChatExamples examples;
    size_t start = 0;
    for (int line = 1; start < text.size(); ++line) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string_view json = std::string_view(text).substr(start, end - start);
        start = end + 1;
        if (json.find_first_not_of(" \t\r") == std::string_view::npos) continue;  // a blank line
        const std::string where = fmt::format("{} '{}' line {}", role, path, line);
        nlohmann::json example;
        try {
            example = nlohmann::json::parse(json);
        } catch (const nlohmann::json::exception& e) {
            throw std::invalid_argument(fmt::format("{} is not JSON: {}", where, e.what()));
        }
        const Turns turns = turnsOf(example, where);
        // The prompt exactly as `--chat --prompt USER [--system SYSTEM]` gives it to the model.
        std::vector<int32_t> tokens = formatPrompt(PromptMode::Chat, turns.system, turns.user, ChatFormat::Llama3, false).encode(tokenizer);
        const size_t promptTokens = tokens.size();
        const std::vector<int32_t> reply = tokenizer.encode(turns.assistant, false);
        tokens.insert(tokens.end(), reply.begin(), reply.end());
        tokens.push_back(eot);
        if (int64_t(tokens.size()) > int64_t(maxTokens) + 1)
            throw std::invalid_argument(fmt::format("{}: the example is {} tokens, longer than a window of --seq-len {} and its next token", where,
                                                    tokens.size(), maxTokens));
        TrainingWindow window{std::vector<int32_t>(tokens.begin(), tokens.end() - 1), std::vector<int32_t>(tokens.begin() + 1, tokens.end())};
        // Targets before the reply's first token are the prompt's: not scored.
        std::fill_n(window.targets.begin(), promptTokens - 1, -1);
        examples.tokens += int64_t(tokens.size());
        examples.scored += int64_t(tokens.size() - promptTokens);
        examples.windows.push_back(std::move(window));
    }
    if (examples.windows.empty()) throw std::invalid_argument(fmt::format("{} '{}' holds no example; expected JSON lines of {{\"messages\": [...]}}", role, path));
    return examples;
}

}  // namespace llama
