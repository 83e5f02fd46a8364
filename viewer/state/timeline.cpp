#include "state/timeline.h"

namespace llama::viewer {

std::vector<TimelineStep> buildTimeline(const std::vector<std::shared_ptr<const StageRecord>>& records) {
    std::vector<TimelineStep> steps;
    extendTimeline(steps, records, 0);
    return steps;
}

void extendTimeline(std::vector<TimelineStep>& steps, const std::vector<std::shared_ptr<const StageRecord>>& records, size_t from) {
    for (size_t i = from; i < records.size(); ++i) {
        const auto& r = records[i];
        if (steps.empty() || steps.back().step != r->step) steps.push_back({r->step, {}, {}, {}});
        TimelineStep& s = steps.back();
        if (r->stage == StageId::UBatchTokens && s.ubatchRecord < 0) {
            int before = 0;
            for (size_t k = steps.size() - 1; k-- > 0;)
                if (steps[k].ubatchNumber >= 0) {
                    before = steps[k].ubatchNumber + 1;
                    break;
                }
            s.ubatchRecord = r->index, s.ubatchNumber = before;
        }
        if (r->layer >= 0) {
            if (int(s.layers.size()) <= r->layer) s.layers.resize(size_t(r->layer) + 1);
            s.layers[size_t(r->layer)].push_back(r->index);
        } else {
            (s.layers.empty() ? s.before : s.after).push_back(r->index);
        }
    }
}

}  // namespace llama::viewer
