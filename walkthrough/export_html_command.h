#pragma once
// `llama-walkthrough export-html RUN.trace [--compare OTHER.trace] --out run.html`: the run as one
// self-contained web page (viewer/page/run_page.h).
#include <CLI/CLI.hpp>
#include <string>

namespace llama::cli {

struct ExportHtmlOptions {
    std::string trace, compare, out, chapterBase;
    double budgetMB = 20;  // --page-budget
};

CLI::App* addExportHtmlCommand(CLI::App& app, ExportHtmlOptions& options);
int runExportHtml(const ExportHtmlOptions& options);

// "Page written to PATH (N MB)"; a device or FIFO (/dev/null) has no size to report.
void printPageWritten(const std::string& path);

}  // namespace llama::cli
