#pragma once
// Pairs the [DEBUG] lines quoted in a document with the lines of a real debug log and compares
// what each line says: its shapes and its values (layer numbers, startPos, N_Rep, dtypes, scalars,
// the target tensor). The check behind `llama-walkthrough compare-doc`.
#include <string>
#include <vector>

#include "doccheck/debug_log_line.h"

namespace llama {

// One thing a documented line says differently from its partner in the log.
struct LineDifference {
    std::string name;       // the shape's or the value's name ("mask", "startPos", "target")
    std::string documented;  // as written: "shape([22 22])", "32"
    std::string logged;
    int documentedElsewhere = 0;  // > 0: the document's own line that says what we logged,
    std::string elsewhere;        // in its words
};

struct DocComparisonRow {
    DebugLine doc;
    const DebugLine* log = nullptr;  // the partner in the log; nullptr when none was found
    std::vector<LineDifference> differences;
    bool match() const { return log && differences.empty(); }
    // Every difference is one the document contradicts itself on (another documented line of the
    // same layer says what we logged): a documented inconsistency, not our mismatch.
    bool documentedInconsistency() const;
};

struct DocComparison {
    std::vector<DebugLine> logLines;  // the rows point into these
    std::vector<DocComparisonRow> rows;
    int documentedSeqLen = 0, loggedSeqLen = 0;  // with anyLength: the prompt lengths mapped onto each other
    int mismatches() const;
    int unpaired() const;
    int inconsistencies() const;
    bool ok() const { return mismatches() == 0 && unpaired() == 0; }
};

struct DocCompareOptions {
    // The document's sequence length (its prefill's, from "sequenceLength: N" or the first block's
    // x) stands for the log's: a documented 22 equals a logged 9 wherever a length or a position
    // count is written. Lets a document written for a 22-token prompt check a log of any prompt.
    bool anyLength = false;
};

// A documented line pairs with a log line of the same signature (stage wording and tensor names,
// values and shapes blanked). Among several it prefers, in this order: the same forward pass
// (startPos), the same layer, the same text, a log line not paired yet, and the first one after
// the previous pair (documents quote runs in order). A document may quote a line twice, so a log
// line can be the partner of several documented lines.
DocComparison compareDocToLog(std::vector<DebugLine> docLines, std::vector<DebugLine> logLines, DocCompareOptions options = {});

}  // namespace llama
