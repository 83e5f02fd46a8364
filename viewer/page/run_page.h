#pragma once
// One self-contained HTML file per run: viewer/web's page (HTML, CSS, script, embedded into the
// binary at build time) with the run's data (run_page_data.h) inlined. Nothing is fetched.
#include <string>
#include <vector>

#include "page/run_page_data.h"

namespace llama::page {

// The page for a trace; throws TraceError naming the file, record and field of a bad trace.
// `note`, when given, receives what the page left out to keep within its budget ("" for nothing).
std::string runPageHtml(const RunPageOptions& options, std::string* note = nullptr);
// Writes it atomically: a failed export leaves no page. The output is checked first
// (checkOutputPath): it may not be the trace, the compared trace or any file this process read.
// Returns runPageHtml's note.
std::string writeRunPage(const RunPageOptions& options, const std::string& outPath);
// The note for a page's data: which attentions lost their arithmetic to the budget, and the
// command that keeps it all ("" when none did).
std::string arithmeticNote(const nlohmann::json& data);

// Text for HTML element content or a quoted attribute: < > & " ' as entities.
std::string htmlEscape(std::string_view text);

// Data for a <script type="application/json"> element: `data` as JSON with < > & written as
// \u003c \u003e \u0026, so no text in it can end the element or open a comment.
std::string scriptSafeJson(const nlohmann::json& data);

// The pages' parts, as they live in viewer/web (generated web_assets.cpp).
struct WebAssets {
    std::string_view html, css, script;  // the run page
    std::string_view siteCss;            // the course site's pages
    std::string_view guard;              // the run page's first script: says when the page was cut short
    std::string_view scriptSha256;       // of `script`, in hex: the CSP names it
    std::string_view guardSha256;        // of `guard`
};

// The checksum the page checks its data against (FNV-1a, 32 bits, of the data's UTF-8 bytes, as
// 8 hex digits): a number damaged in the file is caught, not drawn.
std::string dataChecksum(std::string_view data);
const WebAssets& webAssets();

}  // namespace llama::page
