#include "state/capture_observer.h"


namespace llama::viewer {

namespace {
constexpr int kLensTopK = 5;

uint64_t nextRun() {
    static std::atomic<uint64_t> runs{0};
    return ++runs;
}
}  // namespace

CaptureObserver::CaptureObserver(SamplingSettings sampling, int topK, MemoryPolicy policy, const LogitLens* lens)
    : sampler_(sampling), topK_(topK), lens_(lens), history_(policy), run_(nextRun()) {}

void CaptureObserver::onStage(const StageEvent& event) {
    SampleTops tops;
    // The next token's candidates exist at the logits stage (19), where "Step token" holds, so the
    // Top logits panel shows them there, before the sampler picks one at stage 20. Outside the
    // lock: sorts the vocabulary.
    if (event.stage == StageId::Logits && !event.tensors.empty() && event.tensors[0].tensor->hasData()) {
        tops.top = sampler_.topTokens(nextTokenLogits(*event.tensors[0].tensor), topK_);
        topStep_ = event.step;
    }
    if (event.stage == StageId::Sample && !event.tensors.empty()) {
        if (topStep_ != event.step) tops.top = sampler_.topTokens(*event.tensors[0].tensor, topK_);
        if (const Tensor* penalized = event.tensorField(kPenalizedLogits)) tops.penalized = sampler_.topTokens(*penalized, topK_);
    }
    std::vector<std::vector<TokenProbability>> lens;
    if (event.stage == StageId::FfnResidual && lens_ && lensWanted_) lens = lens_->topTokens(*event.tensors[0].tensor, kLensTopK);
    std::lock_guard lock(mutex_);
    history_.add(event, std::move(tops), nullptr, std::move(lens));
    ++version_;
}

bool CaptureObserver::computeLens(int step) {
    if (!lens_) return false;
    std::lock_guard lock(mutex_);
    bool computed = false;
    for (const auto& r : stepRecords(history_.records(), step)) {
        if (r->stage != StageId::FfnResidual || !r->lens.empty() || r->tensors.empty() || !r->tensors[0].data) continue;
        history_.setLens(size_t(r->index), lens_->topTokens(*r->tensors[0].data, kLensTopK));
        computed = true;
    }
    if (computed) ++version_;
    return computed;
}

void CaptureObserver::onReplayedStage(const StageEvent& event, SampleTops tops, const std::vector<RecordedTensor>& recorded,
                                      std::vector<std::vector<TokenProbability>> lens) {
    std::lock_guard lock(mutex_);
    history_.add(event, std::move(tops), &recorded, std::move(lens));
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
    const auto& records = history_.records();
    const auto& steps = history_.steps();
    // Only appended since the last snapshot of this history (of the steps, the last changed): a long
    // run's snapshot costs what the stages since the last one added, not the whole run again.
    const bool appended = out.run == run_ && out.replacements == history_.replacements() && out.records.size() <= records.size() &&
                          out.steps.size() <= steps.size();
    if (appended) out.records.insert(out.records.end(), records.begin() + std::ptrdiff_t(out.records.size()), records.end());
    else out.records = records;
    if (appended && !out.steps.empty()) {
        out.steps.pop_back();
        out.steps.insert(out.steps.end(), steps.begin() + std::ptrdiff_t(out.steps.size()), steps.end());
    } else out.steps = steps;
    out.replacements = history_.replacements();
    out.positionTokens = history_.positionTokens();
    out.promptTokens = history_.promptTokens();
    out.text = history_.text();
    out.version = version_;
    out.run = run_;
}

}  // namespace llama::viewer
