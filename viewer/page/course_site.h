#pragma once
// `make site`: the course as an offline website. chapters/README.md (the outline) becomes
// index.html and every chapter NN-name.md becomes NN-name.html, rendered by md4c's HTML renderer;
// links between chapters point at the .html pages, each stage section gets an anchor
// (#stage-KEY, the `<!-- stage: KEY -->` comments the viewer's Chapter panel reads), and chapters
// with stage sections embed the replay of a recorded run (run.html, the export-html page) opened
// at their first stage.
//
// A course may come from a stranger, so the site publishes only what is the course's own: images
// under the chapters folder or the figures folder beside it (docs/figures), of an image type,
// copied under names the site chooses; every file name is escaped where a page shows it. The site
// is built in a temporary folder beside --out and swapped in whole, so a failed build leaves the
// previous site as it was; an existing --out is replaced only when it is a site this tool made.
#include <map>
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
// an image it will not publish, or a bad trace.
std::vector<std::string> buildCourseSite(const SiteOptions& options);

// The images a site's pages show: each src a chapter names is resolved against the chapters
// folder and accepted only when it is a regular image file (.png, .jpg, .jpeg, .gif, .webp) under
// the chapters folder or docs/figures beside it; it is then published as figure-NAME.EXT.
class SiteImages {
public:
    explicit SiteImages(const std::string& chaptersDir);
    // The site's name for the image `src` (as the chapter wrote it, HTML entities and %XX decoded
    // by the caller) names; throws std::runtime_error naming `chapter` and src when it is refused.
    std::string publish(const std::string& chapter, const std::string& src);
    // site name -> source file, for copying.
    const std::map<std::string, std::string>& files() const { return files_; }

private:
    std::string chaptersDir_;
    std::vector<std::string> roots_;              // canonical folders images may come from
    std::map<std::string, std::string> bySource_;  // canonical source -> site name
    std::map<std::string, std::string> files_;
};

// One markdown file as the site's HTML body: md4c's rendering with chapter links rewritten and
// stage anchors (and, with `replay`, a replay of run.html after the first stage section's anchor).
std::string chapterBody(const std::string& markdown, const std::vector<std::string>& chapterFiles, bool replay);

// chapters[index]'s whole page: its body (chapterBody) with its images published by `images`,
// the site's navigation and the pager, under a CSP that runs no script.
std::string chapterPage(const std::string& markdown, const std::vector<std::string>& chapters, const std::vector<std::string>& titles,
                        size_t index, SiteImages& images);

// The title a chapter's page shows: its first "# " heading, or "Chapter".
std::string chapterTitle(const std::string& markdown);

}  // namespace llama::page
