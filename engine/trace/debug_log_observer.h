#pragma once
// The walkthrough's debug.log: "[DEBUG]HH:MM:SS.micro <message> (N.NNNN secs)", where the
// seconds are the time since the previous line. Written under a temporary name and moved into
// place by finish(), so a failed or interrupted run never leaves half a log behind.
#include <chrono>
#include <string>

#include "io/atomic_output.h"
#include "stages/stage_event.h"

namespace llama {

class DebugLogObserver : public StageObserver {
public:
    explicit DebugLogObserver(const std::string& path);
    void onStage(const StageEvent& event) override;
    // The log's lines name shapes only.
    StageReads reads(StageId, int) const override { return StageReads::Shapes; }
    // Lines outside the stage flow (e.g. start-up notes).
    void line(const std::string& message);
    // Checks every line was written and moves the log into place; throws naming the file if not.
    void finish() { out_.commit(); }

private:
    AtomicOutputFile out_;
    std::string path_;
    std::chrono::steady_clock::time_point last_;
};

}  // namespace llama
