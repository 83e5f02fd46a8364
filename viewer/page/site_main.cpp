// llama-site: `make site` writes the course as an offline website (course_site.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>

#include "page/course_site.h"

int main(int argc, char** argv) {
    CLI::App app{"Render the course (chapters/), its documentation (docs/) and a recorded run as an offline website"};
    llama::page::SiteOptions o;
    app.add_option("--chapters", o.chaptersDir, "The chapters folder")->required()->check(CLI::ExistingDirectory);
    app.add_option("--docs", o.docsDir, "The documentation's folder (docs/): its pages join the site")->check(CLI::ExistingDirectory);
    app.add_option("--trace", o.tracePath, "The run replayed in the forward-pass chapters")->required()->check(CLI::ExistingFile);
    app.add_option("--out", o.outDir, "The site's folder")->required();
    app.add_option("--live", o.liveDir, "The live page (make web's build/web): copied in, and the Try-its link to it")->check(CLI::ExistingDirectory);
    CLI11_PARSE(app, argc, argv);
    try {
        const auto files = llama::page::buildCourseSite(o);
        const auto pages = std::count_if(files.begin(), files.end(), [](const std::string& f) { return f.ends_with(".html"); });
        fmt::print("Site written to {}/ ({} pages, {} images); open {}/index.html\n", o.outDir, pages, files.size() - size_t(pages), o.outDir);
    } catch (const std::exception& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return 1;
    }
    return 0;
}
