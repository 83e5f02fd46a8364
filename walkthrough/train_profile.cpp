#include "train_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace llama::cli {

void StageClock::onStage(const StageEvent& event) {
    const auto now = std::chrono::steady_clock::now();
    seconds_[event.stage] += std::chrono::duration<double>(now - last_).count();
    last_ = now;
}

void StageClock::restart() { last_ = std::chrono::steady_clock::now(); }

void StageClock::print(int steps, int64_t tokensPerStep, double wallSeconds) const {
    if (steps <= 0) return;
    std::vector<std::pair<StageId, double>> rows(seconds_.begin(), seconds_.end());
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    double forward = 0, backward = 0;
    for (const auto& [stage, s] : rows) (isTrainingStage(stage) ? backward : forward) += s;
    const double staged = forward + backward;
    fmt::print("\nwhere a step's time goes (--profile): {} steps of {} tokens, {:.0f} ms per step measured, {:.0f} tok/s\n", steps, tokensPerStep,
               wallSeconds * 1e3 / steps, double(tokensPerStep) * steps / wallSeconds);
    fmt::print("{:<34} {:>9} {:>12} {:>7}\n", "stage", "pass", "ms per step", "share");
    for (const auto& [stage, s] : rows)
        fmt::print("{:<34} {:>9} {:>12.1f} {:>6.1f}%\n", stageInfo(stage).key, isTrainingStage(stage) ? "backward" : "forward", s * 1e3 / steps,
                   100 * s / staged);
    fmt::print("{:<34} {:>9} {:>12.1f} {:>6.1f}%\n", "forward stages", "", forward * 1e3 / steps, 100 * forward / staged);
    fmt::print("{:<34} {:>9} {:>12.1f} {:>6.1f}%\n", "loss and backward stages", "", backward * 1e3 / steps, 100 * backward / staged);
    fmt::print("{:<34} {:>9} {:>12.1f}   (clipping, AdamW and the held-out loss run between the passes)\n", "outside the stages", "",
               std::max(0.0, wallSeconds - staged) * 1e3 / steps);

    const ml::OpProfile ops = ml::opProfileSnapshot();
    const int64_t opNs = std::accumulate(ops.begin(), ops.end(), int64_t(0), [](int64_t s, const ml::OpTotals& t) { return s + t.nanoseconds; });
    std::vector<size_t> kinds;
    for (size_t k = 0; k < ml::kOpKindCount; ++k)
        if (ops[k].calls) kinds.push_back(k);
    std::stable_sort(kinds.begin(), kinds.end(), [&](size_t a, size_t b) { return ops[a].nanoseconds > ops[b].nanoseconds; });
    fmt::print("\n{:<34} {:>12} {:>7} {:>14}\n", "op", "ms per step", "share", "calls per step");
    for (size_t k : kinds)
        fmt::print("{:<34} {:>12.1f} {:>6.1f}% {:>14.0f}\n", ml::opKindName(ml::OpKind(k)), ops[k].nanoseconds / 1e6 / steps,
                   opNs ? 100.0 * ops[k].nanoseconds / opNs : 0.0, double(ops[k].calls) / steps);
}

}  // namespace llama::cli
