// llama-site: `make site` writes the course as an offline website (course_site.h).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "page/course_site.h"

int main(int argc, char** argv) {
    CLI::App app{"Render the course (chapters/) and a recorded run as an offline website"};
    llama::page::SiteOptions o;
    app.add_option("--chapters", o.chaptersDir, "The chapters folder")->required()->check(CLI::ExistingDirectory);
    app.add_option("--trace", o.tracePath, "The run replayed in the forward-pass chapters")->required()->check(CLI::ExistingFile);
    app.add_option("--out", o.outDir, "The site's folder")->required();
    CLI11_PARSE(app, argc, argv);
    try {
        const auto files = llama::page::buildCourseSite(o);
        fmt::print("Site written to {}/ ({} pages); open {}/index.html\n", o.outDir, files.size(), o.outDir);
    } catch (const std::exception& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return 1;
    }
    return 0;
}
