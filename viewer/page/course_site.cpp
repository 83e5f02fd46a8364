#include "page/course_site.h"

#include <md4c-html.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
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

std::string pageName(const std::string& chapterFile) { return chapterFile == "README.md" ? "index.html" : fs::path(chapterFile).stem().string() + ".html"; }

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

}  // namespace

std::string chapterBody(const std::string& markdown, const std::vector<std::string>& chapterFiles, bool replay) {
    std::string html = renderMarkdown(markdown);
    // Links to another chapter (NN-name.md or ../chapters/NN-name.md, with or without #anchor) go to
    // its page; links to other repository files are kept as text (the site holds only the course).
    static const std::regex link(R"re(<a href="([^"#]*)(#[^"]*)?"([^>]*)>([\s\S]*?)</a>)re");
    std::string out;
    auto begin = std::sregex_iterator(html.begin(), html.end(), link);
    size_t last = 0;
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        out.append(html, last, size_t(m.position(0)) - last);
        last = size_t(m.position(0) + m.length(0));
        const std::string target = m[1].str(), anchor = m[2].str();
        const std::string file = fs::path(target).filename().string();
        const bool external = target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0;
        if (external || target.empty()) out += m[0].str();
        else if (fs::path(target).parent_path().empty() && std::find(chapterFiles.begin(), chapterFiles.end(), file) != chapterFiles.end())
            out += "<a href=\"" + pageName(file) + anchor + "\"" + m[3].str() + ">" + m[4].str() + "</a>";
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

namespace {
// Images a chapter shows (the figures in docs/figures, linked as ../docs/figures/NAME.png) are
// copied beside the pages, which then link them by name: the site stays one self-contained folder.
std::string copyImages(const std::string& html, const fs::path& chaptersDir, const fs::path& outDir, std::vector<std::string>& written) {
    static const std::regex img(R"re(<img src="([^"]*)")re");
    std::string out;
    size_t last = 0;
    for (auto it = std::sregex_iterator(html.begin(), html.end(), img); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        const std::string target = m[1].str();
        if (target.find("://") != std::string::npos || target.rfind("data:", 0) == 0) continue;
        const fs::path source = chaptersDir / target;
        if (!fs::is_regular_file(source)) throw std::runtime_error("an image of the course is missing: " + source.string());
        const std::string name = source.filename().string();
        fs::copy_file(source, outDir / name, fs::copy_options::overwrite_existing);
        if (std::find(written.begin(), written.end(), name) == written.end()) written.push_back(name);
        out.append(html, last, size_t(m.position(1)) - last);
        out += name;
        last = size_t(m.position(1) + m.length(1));
    }
    out.append(html, last);
    return out;
}
}  // namespace

std::vector<std::string> buildCourseSite(const SiteOptions& o) {
    std::vector<std::string> chapters;  // README.md first, then NN-name.md in order
    for (const auto& entry : fs::directory_iterator(o.chaptersDir))
        if (entry.path().extension() == ".md") chapters.push_back(entry.path().filename().string());
    std::sort(chapters.begin(), chapters.end(), [](const std::string& a, const std::string& b) {
        return (a == "README.md") != (b == "README.md") ? a == "README.md" : a < b;
    });
    if (chapters.empty() || chapters.front() != "README.md") throw std::runtime_error(o.chaptersDir + " has no README.md (the course outline)");
    fs::create_directories(o.outDir);
    std::vector<std::string> written;

    writeRunPage({.tracePath = o.tracePath, .chapterBase = "./"}, (fs::path(o.outDir) / "run.html").string());
    written.push_back("run.html");

    std::vector<std::string> titles;
    for (const auto& c : chapters) titles.push_back(titleOf(readFile(fs::path(o.chaptersDir) / c)));
    const WebAssets& web = webAssets();
    for (size_t i = 0; i < chapters.size(); ++i) {
        const std::string markdown = readFile(fs::path(o.chaptersDir) / chapters[i]);
        std::string nav = "<nav class=\"site-nav\"><a href=\"index.html\">Course outline</a>";
        for (size_t j = 1; j < chapters.size(); ++j)
            nav += std::string(" <a href=\"") + pageName(chapters[j]) + "\"" + (j == i ? " class=\"current\"" : "") + ">" +
                   chapters[j].substr(0, 2) + "</a>";
        nav += " <a href=\"run.html\">The bundled run</a></nav>\n";
        std::string pager = "<nav class=\"pager\">";
        if (i > 0) pager += "<a href=\"" + pageName(chapters[i - 1]) + "\">← " + escape(titles[i - 1]) + "</a>";
        if (i + 1 < chapters.size()) pager += " <a class=\"next\" href=\"" + pageName(chapters[i + 1]) + "\">" + escape(titles[i + 1]) + " →</a>";
        pager += "</nav>\n";
        const std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                                 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
                                 "img-src 'self' data:; frame-src 'self' file:\">\n<title>" +
                                 escape(titles[i]) + "</title>\n<style>" + std::string(web.siteCss) + "</style>\n</head>\n<body>\n" + nav +
                                 "<main class=\"chapter\">\n" + copyImages(chapterBody(markdown, chapters, true), o.chaptersDir, o.outDir, written) +
                                 "</main>\n" + pager + "</body>\n</html>\n";
        writeFile(fs::path(o.outDir) / pageName(chapters[i]), page);
        written.push_back(pageName(chapters[i]));
    }
    return written;
}

}  // namespace llama::page
