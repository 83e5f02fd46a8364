#pragma once
// The live page's panels fed a part at a time (viewer/page/run_page_stream.h): the run's trace is
// read as it is written (TraceTail), replayed and made into page data only for the stages since
// the last part, so a held step or a revealed stage costs the same at the 256th token as at the
// first. Two ways to follow a run:
//   held     the threaded build's run waits at a stage: the part brings every stage written since
//            the last one (the trace has no END yet: the held run gives its prompt and text)
//   reveal   a finished run (the single-threaded build's, a recorded training step) shown from
//            its first stage: the part brings the next stage, layer or token of the trace
// Float arrays come as bytes beside the part's JSON, for the page to take as typed arrays. No
// Emscripten here: live_run.cpp binds it.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "page/run_page_stream.h"
#include "trace/trace_tail.h"

namespace llama::web {

class RunPageFeed {
public:
    // The next part of the run recorded in `tracePath`: a new run (another file) starts from its
    // first part ("reset"). `how`: "held" (everything written so far, `soFar` describing the run),
    // "all" (to the end of a finished trace), or a reveal: "first", "stage", "layer", "token" or
    // "end". Returns {"revealed": stages shown, "total": stages recorded, "ended", "data": part}.
    nlohmann::json next(const std::string& tracePath, const std::string& how, const page::RunSoFar* soFar = nullptr);
    // The arithmetic of the attention at (step, layer) of the parts sent (RunPageStream::arithmetic),
    // asked for when the reader opens one of its cells: {"arith": ...}, null where there is none.
    nlohmann::json arithmetic(int step, int layer);
    // The last part's or arithmetic's float arrays (its JSON's "at" offsets point into them).
    const std::string& bytes() const { return bytes_; }
    void clear();

private:
    size_t revealTo(const std::string& how) const;

    std::unique_ptr<TraceTail> tail_;
    std::unique_ptr<page::RunPageStream> stream_;
    size_t freed_ = 0;  // stages whose values were dropped once made into parts
    std::string bytes_;
};

}  // namespace llama::web
