#include "compare_doc_command.h"

#include <fmt/format.h>

#include <stdexcept>

#include "doccheck/doc_compare.h"

namespace llama::cli {

CLI::App* addCompareDocCommand(CLI::App& app, CompareDocOptions& o) {
    CLI::App* cmd = app.add_subcommand("compare-doc", "Compare the [DEBUG] lines quoted in a document with a debug log: shapes and values");
    cmd->add_option("document", o.document, "Markdown (or text) document quoting debug-log lines")->required()->check(CLI::ExistingFile);
    cmd->add_option("--log", o.log, "A debug log written by --debug-log")->required()->check(CLI::ExistingFile);
    cmd->add_flag("--any-length", o.anyLength,
                  "The document's prompt length stands for the log's (a document written for 22 tokens checks a log of any prompt)");
    return cmd;
}

namespace {

std::string describe(const std::vector<LineDifference>& differences) {
    std::string s;
    for (const auto& d : differences) s += fmt::format("{}{} documented {}, logged {}", s.empty() ? "" : "; ", d.name, d.documented, d.logged);
    return s;
}

}  // namespace

int runCompareDoc(const CompareDocOptions& o) {
    std::vector<DebugLine> doc = readDebugLinesFile(o.document);
    if (doc.empty()) throw std::runtime_error("'" + o.document + "' quotes no [DEBUG] lines");
    DocComparison c = compareDocToLog(std::move(doc), readDebugLinesFile(o.log), {o.anyLength});
    if (o.anyLength) {
        if (!c.documentedSeqLen || !c.loggedSeqLen)
            throw std::runtime_error(fmt::format("--any-length: no sequence length in {} (a 'sequenceLength: N' line or a block's x)",
                                                 c.documentedSeqLen ? o.log : o.document));
        fmt::print("Sequence length: documented {} stands for logged {}\n\n", c.documentedSeqLen, c.loggedSeqLen);
    }

    auto layer = [](const DebugLine& l) { return l.layer ? std::to_string(l.layer) : std::string("-"); };
    // A quoted "Returning tensor ..." line takes its stage from the line quoted before it, which
    // may not be the one that wrote it; the partner in the log knows for sure.
    auto stageOf = [](const DocComparisonRow& r) {
        const std::string& s = r.log ? r.log->stage : r.doc.stage;
        return s.empty() ? std::string("-") : s;
    };
    fmt::print("{:>5}  {:<18} {:>5}  {:<12} {}\n", "line", "stage", "layer", "result", "documented | logged");
    for (const auto& r : c.rows) {
        std::string result = !r.log ? "NO PARTNER" : r.match() ? "match" : r.documentedInconsistency() ? "DOC CONFLICT" : "MISMATCH";
        std::string logged = r.log ? fmt::format("{}; {} (log line {})", formatShapes(r.log->shapes), formatValues(r.log->values), r.log->lineNo)
                                   : "-";
        fmt::print("{:>5}  {:<18} {:>5}  {:<12} {}; {} | {}\n", r.doc.lineNo, stageOf(r), layer(r.doc), result, formatShapes(r.doc.shapes),
                   formatValues(r.doc.values), logged);
    }
    fmt::print("\n{} documented lines: {} match, {} mismatch, {} without a partner, {} documented inconsistencies in {}\n", c.rows.size(),
               c.rows.size() - c.mismatches() - c.unpaired() - c.inconsistencies(), c.mismatches(), c.unpaired(), c.inconsistencies(), o.log);
    // Name each problem on its own line too, so a long table need not be searched.
    for (const auto& r : c.rows) {
        if (r.match()) continue;
        if (!r.log) {
            fmt::print("{}:{}: no line of the log matches \"{}\"\n", o.document, r.doc.lineNo, r.doc.message);
        } else if (r.documentedInconsistency()) {
            for (const auto& d : r.differences)
                fmt::print("{}:{}: documented inconsistency in {} (layer {}): {} is {} here, but line {} documents {} (logged: {} at {}:{})\n",
                           o.document, r.doc.lineNo, stageOf(r), layer(r.doc), d.name, d.documented, d.documentedElsewhere, d.elsewhere,
                           d.logged, o.log, r.log->lineNo);
        } else {
            fmt::print("{}:{}: mismatch in {} (layer {}): {} at {}:{}\n", o.document, r.doc.lineNo, stageOf(r), layer(r.doc),
                       describe(r.differences), o.log, r.log->lineNo);
        }
    }
    return c.ok() ? 0 : 1;
}

}  // namespace llama::cli
