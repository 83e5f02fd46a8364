// A trace as export-html makes its page: read, replayed into the page's data (every attention
// cell's arithmetic, the lens, the map) and embedded. Besides clean errors, the page's data slot
// must be JSON that holds no '<' (a text field must not end the script element).
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "fuzz_input.h"
#include "page/run_page.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string trace = llama::fuzz::asFile(data, size, "run.trace");
    return llama::fuzz::expectCleanErrors([&] {
        const std::string page = llama::page::runPageHtml({.tracePath = trace, .chapterBase = "./"});
        // The slot's tag carries the data's checksum: <script ... id="run-data" data-checksum="...">.
        const size_t tag = page.find("<script type=\"application/json\" id=\"run-data\"");
        const size_t begin = tag == std::string::npos ? tag : page.find('>', tag);
        const size_t end = begin == std::string::npos ? begin : page.find("</script>", begin);
        if (end == std::string::npos) {
            std::fprintf(stderr, "the page has no data slot\n");
            std::abort();
        }
        const std::string slot = page.substr(begin + 1, end - begin - 1);
        if (slot.find('<') != std::string::npos || !nlohmann::json::accept(slot)) {
            std::fprintf(stderr, "the data slot is not script-safe JSON\n");
            std::abort();
        }
    });
}
