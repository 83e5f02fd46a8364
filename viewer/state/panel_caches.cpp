#include "state/panel_caches.h"

#include <sstream>

#include "state/panel_labels.h"

namespace llama::viewer {

void TimelineTree::update(const std::vector<std::shared_ptr<const StageRecord>>& records, uint64_t runId) {
    if (run != runId || records.size() < built) steps.clear(), built = 0, run = runId;
    extendTimeline(steps, records, built);
    built = records.size();
}

void LogTail::update(const std::vector<std::shared_ptr<const StageRecord>>& records, uint64_t version) {
    if (builtFor == version) return;
    lines.clear();
    for (size_t i = records.size() > kTailRecords ? records.size() - kTailRecords : 0; i < records.size(); ++i) {
        const StageRecord& r = *records[i];
        const std::string where = logLinePrefix(r);
        std::istringstream in(r.message);
        std::string line;
        for (bool first = true; std::getline(in, line); first = false) lines.push_back((first ? where : std::string(where.size(), ' ')) + line);
    }
    builtFor = version;
}

void BlockHeights::use(const std::string& src, size_t n, float w, float f) {
    if (src == source && n == blocks && w == width && f == font) return;
    source = src, blocks = n, width = w, font = f;
    height.assign(n, -1);
}

const PreparedSlice& PreparedSlices::get(const std::string& key, int frame, const std::function<PreparedSlice()>& make) {
    std::erase_if(entries_, [&](const auto& e) { return e.second.lastFrame < frame - 1; });
    auto it = entries_.find(key);
    if (it == entries_.end()) it = entries_.emplace(key, Entry{make(), frame}).first;
    it->second.lastFrame = frame;
    return it->second.prepared;
}

}  // namespace llama::viewer
