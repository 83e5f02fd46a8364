#include "run_page_feed.h"

#include <stdexcept>

namespace llama::web {

using nlohmann::json;

void RunPageFeed::clear() {
    stream_.reset();
    tail_.reset();
    bytes_.clear();
    freed_ = 0;
}

// Where a reveal step ends, as the page's stepping moves through the stages shown: one stage on,
// to the next layer's first stage, past the next sampling stage, or to the end.
size_t RunPageFeed::revealTo(const std::string& how) const {
    const std::vector<TracedStage>& stages = tail_->run().stages;
    const size_t shown = stream_->stagesSent();
    if (how == "first") return std::min<size_t>(1, stages.size());
    if (how == "stage") return std::min(shown + 1, stages.size());
    if (how == "end" || how == "all" || shown == 0) return stages.size();
    if (how != "layer" && how != "token") throw std::invalid_argument("unknown step '" + how + "'");
    const TracedStage& from = stages[shown - 1];
    for (size_t j = shown; j < stages.size(); ++j)
        if (how == "layer" ? stages[j].layer != from.layer : stages[j].stage == StageId::Sample) return j + 1;
    return stages.size();
}

json RunPageFeed::next(const std::string& tracePath, const std::string& how, const page::RunSoFar* soFar) {
    // A new run, or a finished run revealed again from its first stage.
    if (!tail_ || tail_->path() != tracePath || how == "first") {
        clear();
        // Its values compact as they are read (bfloat16, the keys once per KV head): the replay
        // shares them and keeps them for the run's later parts and arithmetic.
        tail_ = std::make_unique<TraceTail>(tracePath, TailValues::Compact);
        page::RunPageOptions o;
        o.tracePath = tracePath;
        stream_ = std::make_unique<page::RunPageStream>(o, true);
    }
    tail_->read();
    TraceRun& run = tail_->run();
    const bool held = how == "held";
    const size_t upTo = held ? run.stages.size() : revealTo(how);
    json part = stream_->next(run, upTo, held ? soFar : nullptr);
    bytes_ = stream_->takeBytes();
    // Once replayed, a stage's values live in the replay's history: the trace's copies go.
    for (; freed_ < upTo; ++freed_)
        for (TracedTensor& t : run.stages[freed_].tensors) t.values = Tensor();
    return {{"revealed", upTo}, {"total", run.stages.size()}, {"ended", tail_->ended()}, {"data", std::move(part)}};
}

json RunPageFeed::arithmetic(int step, int layer) {
    if (!stream_) throw std::invalid_argument("no run's panels yet");
    std::optional<json> arith = stream_->arithmetic(step, layer);
    bytes_ = stream_->takeBytes();
    // The run's trace by name, as its parts name it: an answer for a run no longer shown is dropped.
    return {{"trace", page::pageFileName(tail_->path())}, {"step", step}, {"layer", layer}, {"arith", arith ? std::move(*arith) : json(nullptr)}};
}

}  // namespace llama::web
