#pragma once
// Why a sequence stopped generating: one value per cause, one wording per value (the log line,
// the summary, a trace's "stopReason" field and the pages all print describe()).
#include <string_view>

namespace llama {

enum class StopReason {
    Running,       // not stopped yet
    EndOfTurn,     // the model chose a stop token
    MaxTokens,     // the generated-token limit
    ContextFull,   // the sequence filled its cells
    Stopped,       // a stop was requested (the stepper's q, the viewer's Stop, a closed page)
    Interrupted,   // a stop by Ctrl-C (the CLI's cause for Stopped)
    OutputClosed,  // a stop because nobody read stdout any more (the CLI's cause for Stopped)
};

std::string_view describe(StopReason reason);

}  // namespace llama
