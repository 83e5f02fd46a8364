#pragma once
// `make site`: the course as an offline website. chapters/README.md (the outline) becomes
// index.html and every chapter NN-name.md becomes NN-name.html, rendered by md4c's HTML renderer;
// links between chapters point at the .html pages, each stage section gets an anchor
// (#stage-KEY, the `<!-- stage: KEY -->` comments the viewer's Chapter panel reads), and chapters
// with stage sections embed the replay of a recorded run (run.html, the export-html page) opened
// at their first stage. Images the chapters show are copied into the site and linked by name.
#include <string>
#include <vector>

namespace llama::page {

struct SiteOptions {
    std::string chaptersDir;  // chapters/
    std::string tracePath;    // the run to replay (run.html)
    std::string outDir;       // build/site
};

// Writes the site; returns the files written (relative to outDir): the pages and the images they
// show (the chapters' figures, copied beside them). Throws naming a file it cannot read or write,
// or a bad trace.
std::vector<std::string> buildCourseSite(const SiteOptions& options);

// One markdown file as the site's HTML body: md4c's rendering with chapter links rewritten and
// stage anchors (and, with `replayAt`, a replay of run.html after the first stage section's anchor).
std::string chapterBody(const std::string& markdown, const std::vector<std::string>& chapterFiles, bool replay);

}  // namespace llama::page
