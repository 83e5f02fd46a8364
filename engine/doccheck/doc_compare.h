#pragma once
// Pairs the [DEBUG] lines quoted in a document with the lines of a real debug log and compares
// their shapes: the check behind `llama-walkthrough compare-doc`.
#include <string>
#include <vector>

#include "doccheck/debug_log_line.h"

namespace llama {

struct DocComparisonRow {
    DebugLine doc;
    const DebugLine* log = nullptr;  // the partner in the log; nullptr when none was found
    bool match() const { return log && log->shapes == doc.shapes; }
};

struct DocComparison {
    std::vector<DebugLine> logLines;  // the rows point into these
    std::vector<DocComparisonRow> rows;
    int mismatches() const;
    int unpaired() const;
    bool ok() const { return mismatches() == 0 && unpaired() == 0; }
};

// A documented line pairs with a log line of the same signature (stage wording and tensor names,
// numbers and shapes blanked). Among several it prefers, in this order: the same forward pass
// (startPos), the same layer, the same numbers, a log line not paired yet, and the first one after
// the previous pair (documents quote runs in order). A document may quote a line twice, so a log
// line can be the partner of several documented lines.
DocComparison compareDocToLog(std::vector<DebugLine> docLines, std::vector<DebugLine> logLines);

}  // namespace llama
