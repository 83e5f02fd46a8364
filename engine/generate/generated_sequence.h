#pragma once
// One sequence's side of generation, whichever way it runs (generation_loop.h): its prompt, the
// tokens chosen for it, their text streamed as complete UTF-8, and the rules that end it.
#include <climits>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "generate/stop_reason.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8_stream.h"

namespace llama {

struct SequenceLimits {
    int maxTokens = 64;    // generated tokens at most
    int cells = INT_MAX;   // tokens it may hold, prompt included (INT_MAX: a context shift makes room)
};

class GeneratedSequence {
public:
    GeneratedSequence(const Tokenizer& tokenizer, std::vector<int32_t> prompt, SequenceLimits limits,
                      std::function<void(const std::string&)> onText = {});

    // A chosen token. A stop token ends the sequence and is not part of it. Any other joins the
    // tokens and the streamed text, and ends the sequence at maxTokens, or when its tokens fill its
    // cells: every token a sequence holds has a cell to be fed into, so none is made that could not
    // be. False once the sequence has ended.
    bool take(int32_t id);
    // Ends it (the first reason stays), flushing a character still incomplete as U+FFFD.
    void end(StopReason reason);

    bool running() const { return reason_ == StopReason::Running; }
    StopReason stopReason() const { return reason_; }
    const std::vector<int32_t>& prompt() const { return prompt_; }
    const std::vector<int32_t>& generated() const { return generated_; }
    const std::string& text() const { return text_; }
    // The latest token: the last generated, else the prompt's last.
    int32_t last() const { return generated_.empty() ? prompt_.back() : generated_.back(); }
    // Tokens it holds: prompt and generated.
    int size() const { return int(prompt_.size() + generated_.size()); }
    const SequenceLimits& limits() const { return limits_; }

private:
    void emit(const std::string& piece);
    const Tokenizer* tokenizer_;
    std::vector<int32_t> prompt_, generated_;
    SequenceLimits limits_;
    std::function<void(const std::string&)> onText_;
    std::vector<int32_t> stopIds_;
    Utf8StreamDecoder decoder_;
    std::string text_;
    StopReason reason_ = StopReason::Running;
};

}  // namespace llama
