#include "generate/generated_sequence.h"

#include <algorithm>
#include <stdexcept>

namespace llama {

GeneratedSequence::GeneratedSequence(const Tokenizer& tokenizer, std::vector<int32_t> prompt, SequenceLimits limits,
                                     std::function<void(const std::string&)> onText)
    : tokenizer_(&tokenizer), prompt_(std::move(prompt)), limits_(limits), onText_(std::move(onText)), stopIds_(tokenizer.stopIds()) {
    if (prompt_.empty()) throw std::invalid_argument("the prompt encodes to no tokens");
    if (limits_.maxTokens <= 0) reason_ = StopReason::MaxTokens;
}

bool GeneratedSequence::take(int32_t id) {
    if (!running()) return false;
    if (std::find(stopIds_.begin(), stopIds_.end(), id) != stopIds_.end()) {
        end(StopReason::EndOfTurn);
        return false;
    }
    const int32_t previous = last();
    generated_.push_back(id);
    emit(decoder_.feed(tokenizer_->decodeAfter(previous, id)));
    if (int(generated_.size()) >= limits_.maxTokens) end(StopReason::MaxTokens);
    else if (size() >= limits_.cells) end(StopReason::ContextFull);
    return running();
}

void GeneratedSequence::end(StopReason reason) {
    if (!running()) return;
    reason_ = reason;
    emit(decoder_.flush());
}

void GeneratedSequence::emit(const std::string& piece) {
    text_ += piece;
    if (onText_ && !piece.empty()) onText_(piece);
}

}  // namespace llama
