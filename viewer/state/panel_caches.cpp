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

void LogTail::wrap(float width, float fontSize, const std::function<size_t(std::string_view, float)>& fit) {
    if (wrappedFor == builtFor && wrappedWidth == width && wrappedFont == fontSize) return;
    wrappedFor = builtFor, wrappedWidth = width, wrappedFont = fontSize;
    rows.clear();
    const std::string indent = "    ";
    for (const std::string& line : lines) {
        std::string_view rest = line;
        for (bool first = true; first || !rest.empty(); first = false) {
            const std::string row = first ? std::string() : indent;
            const float room = first ? width : width - float(indent.size()) * fontSize * 0.3f;
            size_t n = std::min(rest.size(), fit(rest, room));
            if (n == 0 && !rest.empty()) {  // not even one character fits: take one whole UTF-8 character
                n = 1;
                while (n < rest.size() && (static_cast<unsigned char>(rest[n]) & 0xC0) == 0x80) ++n;
            }
            rows.push_back(row + std::string(rest.substr(0, n)));
            rest.remove_prefix(n);
            while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);  // the break's space
        }
    }
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
