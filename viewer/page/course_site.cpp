#include "page/course_site.h"
#include "page/try_it_links.h"

#include <md4c-html.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "io/atomic_output.h"
#include "page/run_page.h"
#include "stages/stage_catalog.h"

namespace llama::page {

namespace fs = std::filesystem;

namespace {

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeFile(const fs::path& p, const std::string& text) {
    AtomicOutputFile out(p.string());
    out.stream() << text;
    out.commit();
}

std::string renderMarkdown(const std::string& markdown) {
    std::string html;
    auto append = [](const MD_CHAR* text, MD_SIZE size, void* out) { static_cast<std::string*>(out)->append(text, size); };
    // GitHub's dialect (tables, strikethrough, autolinks); raw HTML stays on for the <details> checks.
    if (md_html(markdown.data(), MD_SIZE(markdown.size()), append, &html, MD_DIALECT_GITHUB, 0) != 0)
        throw std::runtime_error("md4c could not render the markdown");
    return html;
}

// A markdown source of the site and its page.
struct SitePage {
    fs::path source;  // canonical
    std::string page, title;
};

// The run page's address for a stage: its first occurrence (step 0; layer 1 inside the blocks).
std::string replayAddress(const std::string& key) {
    const StageInfo* info = findStage(key);
    return "run.html#step=0" + std::string(info && info->inBlock ? "&layer=1" : "") + "&stage=" + key;
}

std::string titleOf(const std::string& markdown) {
    static const std::regex heading(R"(^#\s+(.+)$)", std::regex::multiline);
    std::smatch m;
    return std::regex_search(markdown, m, heading) ? m[1].str() : "Chapter";
}

std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : c == '"' ? "&quot;" : std::string(1, c);
    return out;
}

// GitHub's anchor for a heading: its text in lower case, punctuation dropped, spaces as hyphens.
std::string headingSlug(const std::string& html) {
    static const std::regex tag("<[^>]*>");
    std::string text = std::regex_replace(html, tag, "");
    for (auto [entity, c] : {std::pair{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}})
        for (size_t at; (at = text.find(entity)) != std::string::npos;) text.replace(at, std::string(entity).size(), c);
    std::string slug;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_') slug += char(std::tolower(c));
        else if (c == ' ') slug += '-';
        else if (c >= 0x80) slug += char(c);  // letters of other scripts stay, as on GitHub
    }
    return slug;
}

// Each heading gets its anchor (a repeated one -1, -2, ... as on GitHub).
std::string addHeadingIds(const std::string& html) {
    static const std::regex heading(R"re(<h([1-6])>([\s\S]*?)</h\1>)re");
    std::map<std::string, int> seen;
    std::string out;
    size_t last = 0;
    for (auto it = std::sregex_iterator(html.begin(), html.end(), heading); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        out.append(html, last, size_t(m.position(0)) - last);
        last = size_t(m.position(0) + m.length(0));
        std::string id = headingSlug(m[2].str());
        if (const int n = seen[id]++; n > 0) id += "-" + std::to_string(n);
        out += "<h" + m[1].str() + " id=\"" + escape(id) + "\">" + m[2].str() + "</h" + m[1].str() + ">";
    }
    out.append(html, last);
    return out;
}

// One markdown file as the site's HTML body: md4c's rendering with heading anchors, links to the
// site's other sources rewritten to their pages (links to other repository files kept as text:
// the site holds the course and its documentation), and stage anchors (with `replay`, a replay of
// run.html after the first stage section's anchor).
std::string pageBody(const std::string& markdown, const fs::path& sourceDir, const std::vector<SitePage>& pages, bool replay) {
    std::string html = addHeadingIds(renderMarkdown(markdown));
    static const std::regex link(R"re(<a href="([^"#]*)(#[^"]*)?"([^>]*)>([\s\S]*?)</a>)re");
    std::string out;
    auto begin = std::sregex_iterator(html.begin(), html.end(), link);
    size_t last = 0;
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        out.append(html, last, size_t(m.position(0)) - last);
        last = size_t(m.position(0) + m.length(0));
        const std::string target = m[1].str(), anchor = m[2].str();
        const bool external = target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0;
        const bool live = target == "live/index.html";  // a Try-it's "Run it here" (try_it_links.h)
        if (external || target.empty() || live) {
            out += m[0].str();
            continue;
        }
        std::error_code ec;
        const fs::path resolved = fs::weakly_canonical(sourceDir / target, ec);
        auto page = std::find_if(pages.begin(), pages.end(), [&](const SitePage& p) { return !ec && p.source == resolved; });
        if (page != pages.end())
            out += "<a href=\"" + page->page + anchor + "\"" + m[3].str() + ">" + m[4].str() + "</a>";
        else
            out += "<span class=\"repo-link\" title=\"" + escape(target) + " in the repository\">" + m[4].str() + "</span>";
    }
    out.append(html, last);
    // Stage sections: an anchor for the run page's chapter links, a link into the replay, and the
    // replay itself after the first.
    static const std::regex stage(R"(<!-- stage: ([a-z_]+) -->)");
    std::string result;
    bool first = true;
    last = 0;
    for (auto it = std::sregex_iterator(out.begin(), out.end(), stage); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        result.append(out, last, size_t(m.position(0)) - last);
        last = size_t(m.position(0) + m.length(0));
        const std::string key = m[1].str();
        result += "<a id=\"stage-" + key + "\" class=\"stage-anchor\" href=\"" + replayAddress(key) + "\">▶ stage " + key + " in the bundled run</a>\n";
        if (replay && first)
            result += "<iframe class=\"replay\" src=\"" + replayAddress(key) + "\" title=\"The bundled model's run, replayed at stage " + key +
                      "\" loading=\"lazy\"></iframe>\n";
        first = false;
    }
    result.append(out, last);
    return result;
}

// Images a page shows (the chapters' figures, ../docs/figures/NAME.png; the documentation's
// screenshots, screenshots/NAME.png) are copied beside the pages, which then link them by name:
// the site stays one self-contained folder. Two images of one name get their folder's name before
// theirs (screenshots-map-decode.png). `copied` maps a source to its name in the site.
std::string copyImages(const std::string& html, const fs::path& sourceDir, const fs::path& outDir, std::map<fs::path, std::string>& copied,
                       std::vector<std::string>& written) {
    static const std::regex img(R"re(<img src="([^"]*)")re");
    std::string out;
    size_t last = 0;
    for (auto it = std::sregex_iterator(html.begin(), html.end(), img); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        const std::string target = m[1].str();
        if (target.find("://") != std::string::npos || target.rfind("data:", 0) == 0) continue;
        const fs::path source = fs::weakly_canonical(sourceDir / target);
        if (!fs::is_regular_file(source)) throw std::runtime_error("an image of the site is missing: " + (sourceDir / target).string());
        auto [at, added] = copied.try_emplace(source, source.filename().string());
        if (added) {
            const bool taken = std::any_of(copied.begin(), copied.end(), [&](const auto& c) { return c.first != source && c.second == at->second; });
            if (taken) at->second = source.parent_path().filename().string() + "-" + at->second;
            fs::copy_file(source, outDir / at->second, fs::copy_options::overwrite_existing);
            written.push_back(at->second);
        }
        out.append(html, last, size_t(m.position(1)) - last);
        out += at->second;
        last = size_t(m.position(1) + m.length(1));
    }
    out.append(html, last);
    return out;
}

// The markdown files of `dir`, by name; with `outline`, that file first.
std::vector<fs::path> markdownFiles(const fs::path& dir, const std::string& outline = {}) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().extension() == ".md" && entry.is_regular_file()) files.push_back(fs::canonical(entry.path()));
    std::sort(files.begin(), files.end(), [&](const fs::path& a, const fs::path& b) {
        const bool aFirst = a.filename() == outline, bFirst = b.filename() == outline;
        return aFirst != bFirst ? aFirst : a.filename() < b.filename();
    });
    return files;
}

// A navigation line: `head`, each page of `group` (the current one marked), then `tail`.
std::string navLine(const std::string& head, const std::vector<SitePage>& group, const std::string& current, bool numbers,
                    const std::string& tail = {}) {
    std::string nav = "<nav class=\"site-nav\">" + head;
    for (const SitePage& p : group)
        nav += " <a href=\"" + p.page + "\"" + (p.page == current ? " class=\"current\"" : "") + ">" +
               escape(numbers ? p.page.substr(0, 2) : p.title) + "</a>";
    return nav + tail + "</nav>\n";
}
}  // namespace

std::vector<std::string> buildCourseSite(const SiteOptions& o) {
    // The course: README.md (the outline) as index.html, then NN-name.md in order; then docs/.
    std::vector<SitePage> chapters, docs;
    for (const fs::path& f : markdownFiles(o.chaptersDir, "README.md"))
        chapters.push_back({f, f.filename() == "README.md" ? "index.html" : f.stem().string() + ".html", titleOf(readFile(f))});
    if (chapters.empty() || chapters.front().page != "index.html") throw std::runtime_error(o.chaptersDir + " has no README.md (the course outline)");
    if (!o.docsDir.empty())
        for (const fs::path& f : markdownFiles(o.docsDir)) docs.push_back({f, f.stem().string() + ".html", titleOf(readFile(f))});
    std::vector<SitePage> pages = chapters;
    pages.insert(pages.end(), docs.begin(), docs.end());
    std::set<std::string> names = {"run.html"};
    for (const SitePage& p : pages)
        if (!names.insert(p.page).second) throw std::runtime_error(p.source.string() + " would make the page " + p.page + ", which another source makes");

    fs::create_directories(o.outDir);
    std::vector<std::string> written;
    writeRunPage({.tracePath = o.tracePath, .chapterBase = "./"}, (fs::path(o.outDir) / "run.html").string());
    written.push_back("run.html");

    if (!o.liveDir.empty()) {
        // The live page (make web), whole, so the Try-its' "Run it here" links open it.
        fs::copy(o.liveDir, fs::path(o.outDir) / "live", fs::copy_options::recursive | fs::copy_options::overwrite_existing);
        written.push_back("live/index.html");
    }

    const WebAssets& web = webAssets();
    std::map<fs::path, std::string> images;
    const std::vector<SitePage> numbered(chapters.begin() + 1, chapters.end());
    for (const std::vector<SitePage>* group : {&chapters, &docs}) {
        for (size_t i = 0; i < group->size(); ++i) {
            const SitePage& p = (*group)[i];
            std::string nav = "<div class=\"site-navs\">\n" +
                              navLine("<a href=\"index.html\">Course outline</a>", numbered, p.page, true, " <a href=\"run.html\">The bundled run</a>");
            if (!docs.empty()) nav += navLine("Documentation:", docs, p.page, false);
            nav += "</div>\n";
            std::string pager = "<nav class=\"pager\">";
            if (i > 0) pager += "<a href=\"" + (*group)[i - 1].page + "\">← " + escape((*group)[i - 1].title) + "</a>";
            if (i + 1 < group->size()) pager += " <a class=\"next\" href=\"" + (*group)[i + 1].page + "\">" + escape((*group)[i + 1].title) + " →</a>";
            pager += "</nav>\n";
            const std::string markdown = group == &chapters && !o.liveDir.empty() ? addRunHereLinks(readFile(p.source), p.source.string())
                                                                                  : readFile(p.source);
            const std::string body = pageBody(markdown, p.source.parent_path(), pages, group == &chapters);
            const std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
                                     "img-src 'self' data:; frame-src 'self' file:\">\n<title>" +
                                     escape(p.title) + "</title>\n<style>" + std::string(web.siteCss) + "</style>\n</head>\n<body>\n" + nav +
                                     "<main class=\"chapter\">\n" + copyImages(body, p.source.parent_path(), o.outDir, images, written) +
                                     "</main>\n" + pager + "</body>\n</html>\n";
            writeFile(fs::path(o.outDir) / p.page, page);
            written.push_back(p.page);
        }
    }
    return written;
}

}  // namespace llama::page
