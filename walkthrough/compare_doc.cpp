#include "compare_doc.h"

#include <fmt/format.h>

#include <stdexcept>

#include "doccheck/doc_compare.h"

namespace llama::cli {

CLI::App* addCompareDocCommand(CLI::App& app, CompareDocOptions& o) {
    CLI::App* cmd = app.add_subcommand("compare-doc", "Compare the [DEBUG] lines quoted in a document with a debug log's shapes");
    cmd->add_option("document", o.document, "Markdown (or text) document quoting debug-log lines")->required()->check(CLI::ExistingFile);
    cmd->add_option("--log", o.log, "A debug log written by --debug-log")->required()->check(CLI::ExistingFile);
    return cmd;
}

int runCompareDoc(const CompareDocOptions& o) {
    std::vector<DebugLine> doc = readDebugLinesFile(o.document);
    if (doc.empty()) throw std::runtime_error("'" + o.document + "' quotes no [DEBUG] lines");
    DocComparison c = compareDocToLog(std::move(doc), readDebugLinesFile(o.log));

    auto layer = [](const DebugLine& l) { return l.layer ? std::to_string(l.layer) : std::string("-"); };
    // A quoted "Returning tensor ..." line takes its stage from the line quoted before it, which
    // may not be the one that wrote it; the partner in the log knows for sure.
    auto stageOf = [](const DocComparisonRow& r) {
        const std::string& s = r.log ? r.log->stage : r.doc.stage;
        return s.empty() ? std::string("-") : s;
    };
    fmt::print("{:>5}  {:<18} {:>5}  {:<10} {}\n", "line", "stage", "layer", "result", "documented shapes | logged shapes");
    for (const auto& r : c.rows) {
        std::string result = !r.log ? "NO PARTNER" : r.match() ? "match" : "MISMATCH";
        std::string logged = r.log ? fmt::format("{} (log line {})", formatShapes(r.log->shapes), r.log->lineNo) : "-";
        fmt::print("{:>5}  {:<18} {:>5}  {:<10} {} | {}\n", r.doc.lineNo, stageOf(r), layer(r.doc), result, formatShapes(r.doc.shapes), logged);
    }
    fmt::print("\n{} documented lines: {} match, {} mismatch, {} without a partner in {}\n", c.rows.size(),
               c.rows.size() - c.mismatches() - c.unpaired(), c.mismatches(), c.unpaired(), o.log);
    // Name each problem on its own line too, so a long table need not be searched.
    for (const auto& r : c.rows) {
        if (r.match()) continue;
        if (!r.log)
            fmt::print("{}:{}: no line of the log matches \"{}\"\n", o.document, r.doc.lineNo, r.doc.message);
        else
            fmt::print("{}:{}: shape mismatch in {} (layer {}): documented {}, logged {} at {}:{}\n", o.document, r.doc.lineNo,
                       stageOf(r), layer(r.doc), formatShapes(r.doc.shapes),
                       formatShapes(r.log->shapes), o.log, r.log->lineNo);
    }
    return c.ok() ? 0 : 1;
}

}  // namespace llama::cli
