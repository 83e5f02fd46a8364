#pragma once
// `make site`: the course and its documentation as an offline website. chapters/README.md (the
// outline) becomes index.html, every chapter NN-name.md becomes NN-name.html and every page
// docs/NAME.md becomes NAME.html, rendered by md4c's HTML renderer; links between these pages point
// at the .html pages, headings get GitHub's anchors, each stage section gets an anchor
// (#stage-KEY, the `<!-- stage: KEY -->` comments the viewer's Chapter panel reads), and chapters
// with stage sections embed the replay of a recorded run (run.html, the export-html page) opened
// at their first stage. Images the pages show are copied into the site and linked by name. With
// the live page, each Try-it gets a "Run it here" link into it, or says why it runs in a terminal.
#include <string>
#include <vector>

namespace llama::page {

struct SiteOptions {
    std::string chaptersDir;  // chapters/
    std::string docsDir;      // docs/ (empty: the course alone)
    std::string tracePath;    // the run to replay (run.html)
    std::string outDir;       // build/site
    std::string liveDir;      // the live page (make web's build/web), copied in as live/; empty: none
};

// Writes the site; returns the files written (relative to outDir): the pages and the images they
// show (the chapters' figures and the documentation's screenshots, copied beside them). Throws
// naming a file it cannot read or write, two sources that would make the same page, or a bad trace.
std::vector<std::string> buildCourseSite(const SiteOptions& options);

}  // namespace llama::page
