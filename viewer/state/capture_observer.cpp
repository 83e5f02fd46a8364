#include "state/capture_observer.h"

namespace llama::viewer {

CaptureObserver::CaptureObserver(SamplingSettings sampling, int topK, MemoryPolicy policy)
    : sampler_(sampling), topK_(topK), history_(policy) {}

void CaptureObserver::onStage(const StageEvent& event) {
    std::vector<TokenProbability> top;
    if (event.stage == StageId::Sample && !event.tensors.empty())
        top = sampler_.topTokens(*event.tensors[0].tensor, topK_);  // outside the lock: sorts the vocabulary
    std::lock_guard lock(mutex_);
    history_.add(event, std::move(top));
    ++version_;
}

void CaptureObserver::onReplayedStage(const StageEvent& event, std::vector<TokenProbability> top, const std::vector<DType>& dtypes) {
    std::lock_guard lock(mutex_);
    history_.add(event, std::move(top), &dtypes);
    ++version_;
}

void CaptureObserver::appendText(const std::string& piece) {
    std::lock_guard lock(mutex_);
    history_.appendText(piece);
    ++version_;
}

void CaptureObserver::snapshot(HistorySnapshot& out) const {
    if (out.version == version_) return;
    std::lock_guard lock(mutex_);
    out.records = history_.records();
    out.steps = history_.steps();
    out.positionTokens = history_.positionTokens();
    out.promptTokens = history_.promptTokens();
    out.text = history_.text();
    out.version = version_;
}

}  // namespace llama::viewer
