#include "export_html_command.h"

#include <fmt/format.h>

#include <filesystem>

#include "io/atomic_output.h"
#include "options/checked_option.h"
#include "page/run_page.h"

namespace llama::cli {

CLI::App* addExportHtmlCommand(CLI::App& app, ExportHtmlOptions& o) {
    CLI::App* cmd = app.add_subcommand("export-html", "Write a recorded run as one self-contained web page (opens offline in any browser)");
    cmd->add_option("trace", o.trace, "A trace written by --trace")->required()->check(CLI::ExistingFile);
    cmd->add_option("--compare", o.compare, "Another trace: the page shows where they diverge, as `diff` prints it")->check(CLI::ExistingFile);
    cmd->add_option("--out", o.out, "The page to write")->required();
    cmd->add_option("--chapter-base", o.chapterBase, "URL prefix of the course's chapter pages (make site's folder), for the stages' chapter links");
    options::addReal(*cmd, "--page-budget", o.budgetMB, {0, 1e6, false, "a size in MB from 0 (no limit) to 1000000"},
                     "The page's size in MB (default 20; 0: no limit): the attention arithmetic of the steps read last is left out beyond it");
    return cmd;
}

void printPageWritten(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) fmt::print("Page written to {} ({:.2f} MB)\n", path, std::filesystem::file_size(path, ec) / 1e6);
    else fmt::print("Page written to {}\n", path);
}

int runExportHtml(const ExportHtmlOptions& o) {
    page::RunPageOptions options{.tracePath = o.trace, .chapterBase = o.chapterBase, .budgetBytes = size_t(o.budgetMB * 1e6)};
    if (!o.compare.empty()) options.comparePath = o.compare;
    // Before any work: the page may not replace the trace or the compared one.
    checkOutputPath("--out", o.out, {o.trace, o.compare});
    page::checkChapterBase(o.chapterBase);
    std::string note;
    try {
        note = page::writeRunPage(options, o.out);
    } catch (const TraceError& e) {
        fmt::print(stderr, "export-html: {}\nNo page was written.\n", e.what());
        return 1;
    }
    printPageWritten(o.out);
    if (!note.empty()) fmt::print("{}\n", note);
    return 0;
}

}  // namespace llama::cli
