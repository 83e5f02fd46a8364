#include "doccheck/doc_compare.h"

#include <unordered_map>

namespace llama {

int DocComparison::mismatches() const {
    int n = 0;
    for (const auto& r : rows) n += r.log && !r.match();
    return n;
}

int DocComparison::unpaired() const {
    int n = 0;
    for (const auto& r : rows) n += !r.log;
    return n;
}

DocComparison compareDocToLog(std::vector<DebugLine> docLines, std::vector<DebugLine> logLines) {
    DocComparison result;
    result.logLines = std::move(logLines);
    const auto& log = result.logLines;
    std::unordered_map<std::string, std::vector<size_t>> bySignature;
    for (size_t i = 0; i < log.size(); ++i) bySignature[log[i].signature].push_back(i);

    std::vector<bool> used(log.size(), false);
    size_t next = 0;  // just after the previous pair
    for (auto& d : docLines) {
        const DebugLine* partner = nullptr;
        auto it = bySignature.find(d.signature);
        if (it != bySignature.end()) {
            int bestScore = -1;
            size_t best = 0;
            for (size_t i : it->second) {
                // The preferences as bits, most important highest; candidates come in log order,
                // so among equals the earliest wins.
                int score = 16 * (d.startPos < 0 || log[i].startPos == d.startPos) + 8 * (log[i].layer == d.layer) +
                            4 * (log[i].exactText == d.exactText) + 2 * !used[i] + (i >= next);
                if (score > bestScore) bestScore = score, best = i;
            }
            used[best] = true;
            next = best + 1;
            partner = &log[best];
        }
        result.rows.push_back({std::move(d), partner});
    }
    return result;
}

}  // namespace llama
