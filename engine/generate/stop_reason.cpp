#include "generate/stop_reason.h"

namespace llama {

std::string_view describe(StopReason reason) {
    switch (reason) {
        case StopReason::Running: return "running";
        case StopReason::EndOfTurn: return "end of turn token";
        case StopReason::MaxTokens: return "max tokens";
        case StopReason::ContextFull: return "context length";
        case StopReason::Stopped: return "stopped";
        case StopReason::Interrupted: return "interrupt";
        case StopReason::OutputClosed: return "stdout closed";
    }
    return "unknown";
}

}  // namespace llama
