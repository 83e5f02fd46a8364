// Chat examples for fine-tuning (train/chat_examples.h): each encoded as --chat encodes its
// prompt, then the reply and <|eot_id|>, only those scored; and every malformed file refused
// naming the file and the line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "generate/chat_template.h"
#include "tokenizer/tokenizer_file.h"
#include "train/chat_examples.h"

using namespace llama;
namespace fs = std::filesystem;

namespace {

std::string examplesFile(const std::string& name, const std::string& content) {
    const fs::path path = fs::temp_directory_path() / ("llama_chat_examples_" + std::to_string(getpid()) + "_" + name);
    std::ofstream(path, std::ios::binary) << content;
    return path.string();
}

const std::string kGenesis =
    R"({"messages": [{"role": "user", "content": "Quote Genesis 1:3."}, {"role": "assistant", "content": "And God said, Let there be light."}]})";

}  // namespace

TEST_CASE("chat examples: the prompt as --chat encodes it, the reply and <|eot_id|> scored", "[train][sft]") {
    const auto tokenizer = loadTokenizerFile(std::string(ASSETS_DIR) + "/model/tokenizer.model");
    const std::string withSystem =
        R"({"messages": [{"role": "system", "content": "Answer from the King James Bible."}, {"role": "user", "content": "Quote Genesis 1:3."}, )"
        R"({"role": "assistant", "content": "And God said, Let there be light."}]})";
    const std::string path = examplesFile("good.jsonl", kGenesis + "\n\n" + withSystem + "\n");
    const ChatExamples examples = readChatExamples(path, "chat examples", *tokenizer, 64);
    REQUIRE(examples.windows.size() == 2);  // the blank line is skipped
    const std::vector<int32_t> reply = tokenizer->encode("And God said, Let there be light.", false);
    const int32_t eot = *tokenizer->specialId("<|eot_id|>");
    for (const auto& [window, system] : {std::pair{examples.windows[0], ""}, {examples.windows[1], "Answer from the King James Bible."}}) {
        INFO(system);
        const std::vector<int32_t> prompt = formatPrompt(PromptMode::Chat, system, "Quote Genesis 1:3.", ChatFormat::Llama3, false).encode(*tokenizer);
        const size_t n = prompt.size() + reply.size();  // inputs: every token but the final <|eot_id|>
        REQUIRE(window.inputs.size() == n);
        REQUIRE(window.targets.size() == n);
        CHECK(std::vector<int32_t>(window.inputs.begin(), window.inputs.begin() + int64_t(prompt.size())) == prompt);
        CHECK(std::vector<int32_t>(window.inputs.begin() + int64_t(prompt.size()), window.inputs.end()) == reply);
        // Targets: -1 while the next token is the prompt's, then the reply and <|eot_id|>.
        for (size_t i = 0; i + 1 < prompt.size(); ++i) CHECK(window.targets[i] == -1);
        std::vector<int32_t> scored(window.targets.begin() + int64_t(prompt.size()) - 1, window.targets.end());
        std::vector<int32_t> want = reply;
        want.push_back(eot);
        CHECK(scored == want);
    }
    CHECK(examples.scored == 2 * int64_t(reply.size() + 1));
    fs::remove(path);
}

TEST_CASE("chat examples: several exchanges in one example, every reply and its <|eot_id|> scored", "[train][sft]") {
    const auto tokenizer = loadTokenizerFile(std::string(ASSETS_DIR) + "/model/tokenizer.model");
    const std::string path = examplesFile(
        "turns.jsonl",
        R"({"messages": [{"role": "system", "content": "Answer from the King James Bible."}, {"role": "user", "content": "Quote Genesis 1:3."}, )"
        R"({"role": "assistant", "content": "And God said, Let there be light."}, {"role": "user", "content": "And the next verse?"}, )"
        R"({"role": "assistant", "content": "And God saw the light, that it was good."}, {"role": "user", "content": "Which book?"}, )"
        R"({"role": "assistant", "content": "Genesis."}]})"
        "\n");
    const ChatExamples examples = readChatExamples(path, "chat examples", *tokenizer, 128);
    REQUIRE(examples.windows.size() == 1);
    const TrainingWindow& window = examples.windows[0];
    // The conversation as Llama 3's template writes it, special tokens as text, encoded whole: the
    // same tokens as the example's, turn by turn.
    const std::string conversation =
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nAnswer from the King James Bible.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nQuote Genesis 1:3.<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
        "And God said, Let there be light.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nAnd the next verse?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
        "And God saw the light, that it was good.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nWhich book?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
        "Genesis.<|eot_id|>";
    const std::vector<int32_t> tokens = tokenizer->encode(conversation, true);
    REQUIRE(window.inputs.size() + 1 == tokens.size());
    CHECK(window.inputs == std::vector<int32_t>(tokens.begin(), tokens.end() - 1));
    // Scored: exactly the three replies and the <|eot_id|> after each; the prompts, the system
    // message and the user turns between the replies are not.
    std::vector<int32_t> want;
    const int32_t eot = *tokenizer->specialId("<|eot_id|>");
    for (const char* reply : {"And God said, Let there be light.", "And God saw the light, that it was good.", "Genesis."}) {
        const std::vector<int32_t> r = tokenizer->encode(reply, false);
        want.insert(want.end(), r.begin(), r.end());
        want.push_back(eot);
    }
    std::vector<int32_t> scored;
    for (size_t i = 0; i < window.targets.size(); ++i) {
        if (window.targets[i] < 0) continue;
        CHECK(window.targets[i] == tokens[i + 1]);
        scored.push_back(window.targets[i]);
    }
    CHECK(scored == want);
    CHECK(examples.scored == int64_t(want.size()));
    CHECK(examples.tokens == int64_t(tokens.size()));
    // A user turn after a reply is context: the target after the first reply's <|eot_id|> is not scored.
    const auto firstEot = std::find(tokens.begin() + 1, tokens.end(), eot);  // the system message's
    const auto firstReplyEot = std::find(std::find(firstEot + 1, tokens.end(), eot) + 1, tokens.end(), eot);
    CHECK(window.targets[size_t(firstReplyEot - tokens.begin())] == -1);
    fs::remove(path);
}

TEST_CASE("chat examples: a malformed file is refused naming the file and the line", "[train][sft]") {
    const auto tokenizer = loadTokenizerFile(std::string(ASSETS_DIR) + "/model/tokenizer.model");
    const std::pair<std::string, std::string> cases[] = {
        {"", "holds no example"},
        {"\n\n", "holds no example"},
        {kGenesis + "\n{\"messages\": [\n", "line 2 is not JSON"},
        {kGenesis + "\n[1, 2]\n", "line 2: expected an object with a \"messages\" list"},
        {R"({"messages": [{"role": "user", "content": "Quote Genesis 1:3."}]})", "line 1: no assistant message to learn"},
        {R"({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hi"}, {"role": "user", "content": "Again"}]})",
         "line 1: not user and assistant in turn; expected a user message then an assistant message, once or more in turn (a system message first, "
         "if any), got [user, assistant, user]"},
        {R"({"messages": [{"role": "user", "content": "Hi"}, {"role": "user", "content": "Again"}, {"role": "assistant", "content": "Hi"}, )"
         R"({"role": "assistant", "content": "Hi"}]})",
         "got [user, user, assistant, assistant]"},
        {R"({"messages": [{"role": "user"}, {"role": "assistant", "content": "Hi"}]})", "line 1: message 1 needs a \"role\" and a \"content\""},
        {kGenesis + "\n" + kGenesis + "\n" + R"({"messages": [{"role": "user", "content": "Quote Genesis 1:3."}, {"role": "assistant", "content": ")" +
             std::string(2000, 'x') + "\"}]}",
         "line 3: the example is"},
    };
    int k = 0;
    for (const auto& [content, message] : cases) {
        const std::string path = examplesFile(std::to_string(k++) + ".jsonl", content);
        INFO(content);
        CHECK_THROWS_WITH(readChatExamples(path, "chat examples", *tokenizer, 64),
                          Catch::Contains("chat examples '" + path + "'") && Catch::Contains(message));
        fs::remove(path);
    }
    CHECK_THROWS_WITH(readChatExamples("/nonexistent/chat.jsonl", "chat examples", *tokenizer, 32), Catch::Contains("/nonexistent/chat.jsonl"));
}
