#pragma once
// One self-contained HTML file per run: viewer/web's page (HTML, CSS, script, embedded into the
// binary at build time) with the run's data (run_page_data.h) inlined. Nothing is fetched.
#include <string>

#include "page/run_page_data.h"

namespace llama::page {

// The page for a trace; throws TraceError naming the file, record and field of a bad trace.
std::string runPageHtml(const RunPageOptions& options);
// Writes it atomically: a failed export leaves no page.
void writeRunPage(const RunPageOptions& options, const std::string& outPath);

// The pages' parts, as they live in viewer/web (generated web_assets.cpp).
struct WebAssets {
    std::string_view html, css, script;  // the run page
    std::string_view siteCss;            // the course site's pages
};
const WebAssets& webAssets();

}  // namespace llama::page
