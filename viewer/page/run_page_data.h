#pragma once
// The numbers a run's web page shows (viewer/web/run_page.js draws them): computed here, once, in
// C++ by the code the viewer and `diff` use (trace replay into a RunHistory, attention_explain,
// lens_grid, temperature_sweep, trace_comparison), and written as JSON whose float arrays are
// base64 little-endian float32 ({"dtype": "f32", "n": count, "b64": ...}), or bfloat16 ("bf16":
// the high halves) when that loses nothing. The page's script only
// draws and navigates.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "trace/patch_trace.h"
#include "trace/trace_reader.h"

namespace llama::page {

struct RunPageOptions {
    std::string tracePath;
    std::optional<std::string> comparePath;  // --compare: the stages-by-layers difference map
    // A patch trace (trace/patch_trace.h): the page is its clean run's, compared with its
    // corrupted run, with the patching heatmap.
    std::shared_ptr<const PatchTrace> patch;
    std::string chapterBase;                 // "" : chapter references as file names; else the URL prefix of the site's chapter pages
    std::function<bool()> cancelled;         // polled while the page is computed (a Ctrl-C): ExportCancelled
    // The page's size in bytes (0: no limit). The attention arithmetic of the steps a reader opens
    // last is left out to stay within it; the page says so and how to get the rest.
    size_t budgetBytes = kDefaultPageBudget;
    size_t fixedBytes = 0;                   // the page's bytes besides the data (HTML, CSS, scripts, title)
    static constexpr size_t kDefaultPageBudget = 20'000'000;
};

class ExportCancelled : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws std::invalid_argument unless `base` is empty, a relative path or an http:, https: or file:
// address: a "Read:" link made from it must not run script (javascript:) or carry a page (data:).
void checkChapterBase(const std::string& base);

struct RunSoFar;  // run_page_stream.h

// Throws TraceError when the compared trace is bad. `soFar`: what a trace still being written lacks
// (a held run's prompt tokens, text and state).
nlohmann::json runPageData(std::shared_ptr<const TraceRun> run, const RunPageOptions& options, const RunSoFar* soFar = nullptr);

// A float array as the page embeds it (base64; run_page_stream.h's FloatArrays also as bytes).
nlohmann::json floatArray(const std::vector<float>& values);

}  // namespace llama::page
