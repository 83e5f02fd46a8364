#pragma once
// `make site`: the course and its documentation as an offline website. chapters/README.md (the
// outline) becomes index.html, every chapter NN-name.md becomes NN-name.html and every page
// docs/NAME.md becomes NAME.html, rendered by md4c's HTML renderer; links between these pages point
// at the .html pages, headings get GitHub's anchors, each stage section gets an anchor
// (#stage-KEY, the `<!-- stage: KEY -->` comments the viewer's Chapter panel reads), and chapters
// with stage sections embed the replay of a recorded run (run.html, the export-html page) opened
// at their first stage. With the live page (make web), each Try-it gets a "Run it here" link into
// it, or says why it runs in a terminal (try_it_links.h).
//
// A course may come from a stranger, so the site publishes only what is the course's own: images
// under the chapters folder, the figures folder beside it (docs/figures) or the documentation's
// folder, of an image type,
// copied under names the site chooses; every file name is escaped where a page shows it. The site
// is built in a temporary folder beside --out and swapped in whole, so a failed build leaves the
// previous site as it was; an existing --out is replaced only when it is a site this tool made.
#include <map>
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
// naming a file it cannot read or write, two sources that would make the same page, an image it
// will not publish, or a bad trace.
std::vector<std::string> buildCourseSite(const SiteOptions& options);

// The images a site's pages show: each src a page names is resolved against the page's folder and
// accepted only when it is a regular image file (.png, .jpg, .jpeg, .gif, .webp, or .svg, which an
// <img> shows without running its scripts) under the chapters folder, docs/figures beside it or
// the documentation's folder; it is then published as figure-NAME.EXT.
class SiteImages {
public:
    explicit SiteImages(const std::string& chaptersDir, const std::string& docsDir = {});
    // The site's name for the image `src` (as the page wrote it, HTML entities and %XX decoded by
    // the caller; relative to `pageDir`, the chapters folder when empty); throws
    // std::runtime_error naming `page` and src when it is refused.
    std::string publish(const std::string& page, const std::string& src, const std::string& pageDir = {});
    // site name -> source file, for copying.
    const std::map<std::string, std::string>& files() const { return files_; }

private:
    std::string chaptersDir_;
    std::vector<std::string> roots_;              // canonical folders images may come from
    std::map<std::string, std::string> bySource_;  // canonical source -> site name
    std::map<std::string, std::string> files_;
};

// One markdown file as the site's HTML body: md4c's rendering with heading anchors, chapter links
// rewritten and stage anchors (and, with `replay`, a replay of run.html after the first stage
// section's anchor).
std::string chapterBody(const std::string& markdown, const std::vector<std::string>& chapterFiles, bool replay);

// chapters[index]'s whole page: its body (chapterBody) with its images published by `images`,
// the site's navigation and the pager, under a CSP that runs no script.
std::string chapterPage(const std::string& markdown, const std::vector<std::string>& chapters, const std::vector<std::string>& titles,
                        size_t index, SiteImages& images);

// The title a chapter's page shows: its first "# " heading, or "Chapter".
std::string chapterTitle(const std::string& markdown);

}  // namespace llama::page
