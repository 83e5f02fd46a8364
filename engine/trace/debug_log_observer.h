#pragma once
// The walkthrough's debug.log: "[DEBUG]HH:MM:SS.micro <message> (N.NNNN secs)", where the
// seconds are the time since the previous line.
#include <chrono>
#include <fstream>
#include <string>

#include "stages/stage_event.h"

namespace llama {

class DebugLogObserver : public StageObserver {
public:
    explicit DebugLogObserver(const std::string& path);
    void onStage(const StageEvent& event) override;
    // Lines outside the stage flow (e.g. start-up notes).
    void line(const std::string& message);

private:
    std::ofstream out_;
    std::chrono::steady_clock::time_point last_;
};

}  // namespace llama
