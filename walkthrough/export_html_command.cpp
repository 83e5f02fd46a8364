#include "export_html_command.h"

#include <fmt/format.h>

#include <filesystem>

#include "page/run_page.h"

namespace llama::cli {

CLI::App* addExportHtmlCommand(CLI::App& app, ExportHtmlOptions& o) {
    CLI::App* cmd = app.add_subcommand("export-html", "Write a recorded run as one self-contained web page (opens offline in any browser)");
    cmd->add_option("trace", o.trace, "A trace written by --trace")->required()->check(CLI::ExistingFile);
    cmd->add_option("--compare", o.compare, "Another trace: the page shows where they diverge, as `diff` prints it")->check(CLI::ExistingFile);
    cmd->add_option("--out", o.out, "The page to write")->required();
    cmd->add_option("--chapter-base", o.chapterBase, "URL prefix of the course's chapter pages (make site's folder), for the stages' chapter links");
    return cmd;
}

int runExportHtml(const ExportHtmlOptions& o) {
    page::RunPageOptions options{.tracePath = o.trace, .chapterBase = o.chapterBase};
    if (!o.compare.empty()) options.comparePath = o.compare;
    try {
        page::writeRunPage(options, o.out);
    } catch (const TraceError& e) {
        fmt::print(stderr, "export-html: {}\nNo page was written.\n", e.what());
        return 1;
    }
    fmt::print("Page written to {} ({:.2f} MB)\n", o.out, std::filesystem::file_size(o.out) / 1e6);
    return 0;
}

}  // namespace llama::cli
