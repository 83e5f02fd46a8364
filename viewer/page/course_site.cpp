#include "page/course_site.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <md4c-html.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "io/atomic_output.h"
#include "io/input_file.h"
#include "page/run_page.h"
#include "page/try_it_links.h"
#include "stages/stage_catalog.h"

namespace llama::page {

namespace fs = std::filesystem;

namespace {

std::string renderMarkdown(const std::string& markdown) {
    std::string html;
    auto append = [](const MD_CHAR* text, MD_SIZE size, void* out) { static_cast<std::string*>(out)->append(text, size); };
    // GitHub's dialect (tables, strikethrough, autolinks); raw HTML stays on for the <details> checks.
    if (md_html(markdown.data(), MD_SIZE(markdown.size()), append, &html, MD_DIALECT_GITHUB, 0) != 0)
        throw std::runtime_error("md4c could not render the markdown");
    return html;
}

std::string pageName(const std::string& chapterFile) { return chapterFile == "README.md" ? "index.html" : fs::path(chapterFile).stem().string() + ".html"; }

// A file name as a relative URL: every byte but letters, digits and - . _ ~ as %XX (so nothing in
// it is markup, a scheme or a path).
std::string urlName(std::string_view name) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : name) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') out += char(c);
        else out += {'%', hex[c >> 4], hex[c & 15]};
    }
    return out;
}

// An attribute value as md4c wrote it (&amp; &lt; &gt; &quot; and %XX escapes) -> the text it means.
std::string decodeAttribute(std::string_view value) {
    std::string text;
    for (size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '&') {
            bool decoded = false;
            for (auto [entity, c] : {std::pair{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}})
                if (value.substr(i).starts_with(entity)) {
                    text += c, i += std::strlen(entity) - 1, decoded = true;
                    break;
                }
            if (!decoded) text += '&';
        } else {
            text += value[i];
        }
    }
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
            out += char(std::stoi(text.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

// The run page's address for a stage: its first occurrence (step 0; layer 1 inside the blocks).
std::string replayAddress(const std::string& key) {
    const StageInfo* info = findStage(key);
    return "run.html#step=0" + std::string(info && info->inBlock ? "&amp;layer=1" : "") + "&amp;stage=" + key;
}

// Plain scanning, not std::regex: its matcher recurses per character and a long link or heading
// in a stranger's chapter would overflow the stack. Calls edit(at, end) for each `open` ...
// `close` span of `html` (at: where `open` starts, end: past `close`) and returns the text with
// each span replaced by what edit returned (std::nullopt keeps it).
template <class Edit>
std::string replaceSpans(const std::string& html, std::string_view open, std::string_view close, Edit&& edit) {
    std::string out;
    size_t last = 0;
    for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
        if (at < last) continue;
        const size_t closeAt = html.find(close, at + open.size());
        if (closeAt == std::string::npos) break;
        const size_t end = closeAt + close.size();
        if (std::optional<std::string> replacement = edit(std::string_view(html).substr(at, end - at))) {
            out.append(html, last, at - last);
            out += *replacement;
            last = end;
        }
    }
    out.append(html, last);
    return out;
}

// Every image of a chapter's HTML: `<img src="...">` as md4c writes it (a src with no quote, tag end
// or line break in it) is published under the site's name (or refused); any other <img, raw HTML
// of another form (unquoted, upper case, src not first, unterminated), is shown as text, so no
// image the site did not publish is loaded.
std::string publishImages(const std::string& html, const std::string& chapter, SiteImages& images, const std::string& pageDir = {}) {
    std::string out;
    size_t last = 0;
    for (size_t at = 0; (at = html.find('<', at)) != std::string::npos; ++at) {
        if (html.size() - at < 5 || !std::equal(html.begin() + std::ptrdiff_t(at) + 1, html.begin() + std::ptrdiff_t(at) + 4, "img",
                                                [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; }))
            continue;
        const char next = html[at + 4];
        if (!(std::isspace(static_cast<unsigned char>(next)) || next == '/' || next == '>')) continue;  // <imgx> is no image
        out.append(html, last, at - last);
        last = at;
        const size_t valueEnd = html.compare(at, 10, "<img src=\"") == 0 ? html.find_first_of("\"<>\n", at + 10) : std::string::npos;
        if (valueEnd == std::string::npos || html[valueEnd] != '"') {
            out += "&lt;";
            last = at + 1;
            continue;
        }
        const std::string src = decodeAttribute(std::string_view(html).substr(at + 10, valueEnd - at - 10));
        if (src.find("://") != std::string::npos || src.starts_with("data:")) continue;  // CSP: img-src 'self' data:
        // A figure is a link to itself: a tap on a phone opens it at its own size.
        // The tag ends at the first '>' with no '<' before it; otherwise its rest stays text and the loop sees that '<'.
        const size_t tagEnd = html.find_first_of("<>", valueEnd + 1);
        const std::string name = urlName(images.publish(chapter, src, pageDir));
        if (tagEnd == std::string::npos || html[tagEnd] != '>') {
            out += "<img src=\"" + name + "\"";
            last = valueEnd + 1;
            continue;
        }
        out += "<a class=\"figure\" href=\"" + name + "\" title=\"the figure at its own size\"><img src=\"" + name + "\"";
        out.append(html, valueEnd + 1, tagEnd + 1 - (valueEnd + 1));
        out += "</a>";
        last = tagEnd + 1;
    }
    out.append(html, last);
    return out;
}

}  // namespace

std::string chapterTitle(const std::string& markdown) {
    std::istringstream in(markdown);
    for (std::string line; std::getline(in, line);) {
        if (line.size() < 2 || line[0] != '#' || (line[1] != ' ' && line[1] != '\t')) continue;
        const size_t first = line.find_first_not_of(" \t", 1), last = line.find_last_not_of(" \t\r");
        if (first != std::string::npos && last >= first) return line.substr(first, last - first + 1);
    }
    return "Chapter";
}

namespace {

// GitHub's anchor for a heading: its text (tags dropped, entities decoded) in lower case,
// punctuation dropped, spaces as hyphens; letters of other scripts stay.
std::string headingSlug(std::string_view html) {
    std::string text;
    for (size_t i = 0; i < html.size(); ++i) {
        if (html[i] == '<') {
            const size_t end = html.find('>', i);
            if (end == std::string_view::npos) break;
            i = end;
        } else {
            text += html[i];
        }
    }
    text = decodeAttribute(text);
    std::string slug;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_') slug += char(std::tolower(c));
        else if (c == ' ') slug += '-';
        else if (c >= 0x80) slug += char(c);
    }
    return slug;
}

// Each heading gets its anchor (a repeated one -1, -2, ... as on GitHub).
std::string addHeadingIds(const std::string& html) {
    std::map<std::string, int> seen;
    std::string out = html;
    for (char level = '1'; level <= '6'; ++level) {
        const std::string open = std::string("<h") + level + ">", close = std::string("</h") + level + ">";
        out = replaceSpans(out, open, close, [&](std::string_view h) -> std::optional<std::string> {
            const std::string_view inner = h.substr(open.size(), h.size() - open.size() - close.size());
            std::string id = headingSlug(inner);
            if (const int n = seen[id]++; n > 0) id += "-" + std::to_string(n);
            return std::string("<h") + level + " id=\"" + htmlEscape(id) + "\">" + std::string(inner) + close;
        });
    }
    return out;
}

// The page a link's target (decoded, without its #anchor) goes to, or nothing: then it is shown as
// text (a file of the repository that the site does not hold).
using LinkResolver = std::function<std::optional<std::string>(const std::string& target)>;

std::string bodyHtml(const std::string& markdown, const LinkResolver& resolve, bool replay) {
    const std::string html = addHeadingIds(renderMarkdown(markdown));
    const std::string out = replaceSpans(html, "<a href=\"", "</a>", [&](std::string_view a) -> std::optional<std::string> {
        const size_t valueEnd = a.find('"', 9), tagEnd = a.find('>', 9);
        if (valueEnd == std::string_view::npos || tagEnd == std::string_view::npos || tagEnd < valueEnd) return std::nullopt;
        const std::string_view value = a.substr(9, valueEnd - 9), attributes = a.substr(valueEnd + 1, tagEnd - valueEnd - 1);
        const std::string_view inner = a.substr(tagEnd + 1, a.size() - 4 - tagEnd - 1);
        const size_t hash = value.find('#');
        const std::string target = decodeAttribute(value.substr(0, hash));
        const std::string_view anchor = hash == std::string_view::npos ? "" : value.substr(hash);
        const bool external = target.find("://") != std::string::npos || target.starts_with("mailto:");
        const bool live = target == "live/index.html";  // a Try-it's "Run it here" (try_it_links.h)
        if (external || target.empty() || live) return std::nullopt;
        if (const auto page = resolve(target))
            return "<a href=\"" + urlName(*page) + std::string(anchor) + "\"" + std::string(attributes) + ">" + std::string(inner) + "</a>";
        return "<span class=\"repo-link\" title=\"" + htmlEscape(target) + " in the repository\">" + std::string(inner) + "</span>";
    });
    // Stage sections: an anchor for the run page's chapter links, a link into the replay, and the
    // replay itself after the first.
    bool first = true;
    return replaceSpans(out, "<!-- stage: ", " -->", [&](std::string_view comment) -> std::optional<std::string> {
        const std::string key(comment.substr(12, comment.size() - 12 - 4));
        if (key.empty() || key.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos) return std::nullopt;
        std::string result = "<a id=\"stage-" + key + "\" class=\"stage-anchor\" href=\"" + replayAddress(key) + "\">▶ stage " + key + " in the bundled run</a>\n";
        if (replay && first)
            result += "<iframe class=\"replay\" src=\"" + replayAddress(key) + "\" title=\"The bundled model's run, replayed at stage " + key +
                      "\" loading=\"lazy\"></iframe>\n";
        first = false;
        return result;
    });
}

// A markdown source of the site and its page.
struct SitePage {
    fs::path source;  // canonical
    std::string page, title;
};

// A navigation line: `head`, each page of `group` (the current one marked), then `tail`.
std::string navLine(const std::string& head, const std::vector<SitePage>& group, const std::string& current, bool numbers,
                    const std::string& tail = {}) {
    std::string nav = "<nav class=\"site-nav\">" + head;
    for (const SitePage& p : group)
        nav += " <a href=\"" + urlName(p.page) + "\"" + (p.page == current ? " class=\"current\"" : "") + ">" +
               htmlEscape(numbers ? p.page.substr(0, 2) : p.title) + "</a>";
    return nav + tail + "</nav>\n";
}

// A whole page: its body with its images published, the navigation and the pager, under a CSP
// that runs no script.
std::string pageHtml(const std::string& body, const std::string& title, const std::string& nav, const SitePage* previous, const SitePage* next) {
    std::string pager = "<nav class=\"pager\">";
    if (previous) pager += "<a href=\"" + urlName(previous->page) + "\">← " + htmlEscape(previous->title) + "</a>";
    if (next) pager += " <a class=\"next\" href=\"" + urlName(next->page) + "\">" + htmlEscape(next->title) + " →</a>";
    pager += "</nav>\n";
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
           "img-src 'self' data:; frame-src 'self' file:\">\n<title>" +
           htmlEscape(title) + "</title>\n<style>" + std::string(webAssets().siteCss) + "</style>\n</head>\n<body>\n" + nav +
           "<main class=\"chapter\">\n" + body + "</main>\n" + pager + "</body>\n</html>\n";
}

}  // namespace

std::string chapterBody(const std::string& markdown, const std::vector<std::string>& chapterFiles, bool replay) {
    // Links to another chapter by its file name (with or without #anchor) go to its page.
    return bodyHtml(markdown, [&](const std::string& target) -> std::optional<std::string> {
        if (target.find('/') == std::string::npos && std::find(chapterFiles.begin(), chapterFiles.end(), target) != chapterFiles.end())
            return pageName(target);
        return std::nullopt;
    }, replay);
}

SiteImages::SiteImages(const std::string& chaptersDir, const std::string& docsDir) : chaptersDir_(chaptersDir) {
    std::error_code ec;
    std::vector<fs::path> roots = {fs::path(chaptersDir), fs::path(chaptersDir) / ".." / "docs" / "figures"};
    if (!docsDir.empty()) roots.push_back(docsDir);
    for (const fs::path& root : roots)
        if (fs::is_directory(root, ec)) roots_.push_back(fs::canonical(root, ec).string() + "/");
}

std::string SiteImages::publish(const std::string& page, const std::string& src, const std::string& pageDir) {
    auto refuse = [&](const std::string& why) {
        throw std::runtime_error((pageDir.empty() ? "chapters/" + page : page) + ": the image '" + src + "' " + why +
                                 "; the site publishes only images of the course");
    };
    std::error_code ec;
    const fs::path source = fs::path(pageDir.empty() ? chaptersDir_ : pageDir) / src;  // an absolute src replaces the folder: refused below
    if (!fs::exists(source, ec)) refuse("is missing (looked for " + source.string() + ")");
    if (!fs::is_regular_file(source, ec)) refuse("is not a regular file");
    const std::string canonical = fs::canonical(source, ec).string();
    if (ec || std::none_of(roots_.begin(), roots_.end(), [&](const std::string& root) { return canonical.starts_with(root); }))
        refuse("lies outside the chapters folder, docs/figures beside it and the documentation's folder");
    std::string ext = fs::path(canonical).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (ext != ".png" && ext != ".jpg" && ext != ".jpeg" && ext != ".gif" && ext != ".webp" && ext != ".svg")
        refuse("is not a .png, .jpg, .jpeg, .gif, .webp or .svg picture");
    if (auto it = bySource_.find(canonical); it != bySource_.end()) return it->second;
    // figure-STEM.EXT, the stem reduced to letters, digits, - and _; numbered when two sources share it.
    std::string stem;
    for (unsigned char c : fs::path(canonical).stem().string()) stem += std::isalnum(c) || c == '-' || c == '_' ? char(c) : '_';
    std::string name = "figure-" + stem.substr(0, 80) + ext;
    for (int n = 2; files_.count(name); ++n) name = "figure-" + stem.substr(0, 80) + "-" + std::to_string(n) + ext;
    bySource_[canonical] = name;
    files_[name] = canonical;
    return name;
}

std::string chapterPage(const std::string& markdown, const std::vector<std::string>& chapters, const std::vector<std::string>& titles,
                        size_t i, SiteImages& images) {
    std::vector<SitePage> pages;
    for (size_t j = 0; j < chapters.size(); ++j) pages.push_back({chapters[j], pageName(chapters[j]), titles[j]});
    const std::vector<SitePage> numbered(pages.begin() + 1, pages.end());
    const std::string nav = navLine("<a href=\"index.html\">Course outline</a>", numbered, pages[i].page, true, " <a href=\"run.html\">The bundled run</a>");
    return pageHtml(publishImages(chapterBody(markdown, chapters, true), chapters[i], images), titles[i], nav, i > 0 ? &pages[i - 1] : nullptr,
                    i + 1 < pages.size() ? &pages[i + 1] : nullptr);
}

namespace {

// A folder of files the site writes, removed unless release()d.
struct TemporaryFolder {
    fs::path path;
    ~TemporaryFolder() {
        std::error_code ec;
        if (!path.empty()) fs::remove_all(path, ec);
    }
};

constexpr const char* kSiteMarker = ".llama-site";  // in every site this tool made: --out may replace it

// --out before any work: a new folder, an empty one or a site made here; never the chapters, the
// trace or a folder holding them.
void checkSiteOutput(const SiteOptions& o) {
    checkOutputPath("--out", o.outDir, {o.tracePath}, {}, true);
    std::error_code ec;
    const fs::path out = fs::weakly_canonical(fs::absolute(o.outDir), ec);
    for (const std::string& input : {o.chaptersDir, o.tracePath, o.docsDir, o.liveDir}) {
        if (input.empty()) continue;
        const fs::path in = fs::weakly_canonical(fs::absolute(input), ec);
        const auto [o_end, i_end] = std::mismatch(out.begin(), out.end(), in.begin(), in.end());
        if (o_end == out.end() || i_end == in.end())
            throw std::invalid_argument("--out '" + o.outDir + "': the site's folder is replaced whole, and it would hold or be inside '" + input +
                                        "', an input; choose another folder");
    }
    if (fs::exists(o.outDir, ec) && !fs::is_empty(o.outDir, ec) && !fs::exists(fs::path(o.outDir) / kSiteMarker, ec))
        throw std::invalid_argument("--out '" + o.outDir + "' is a folder with files that llama-site did not write; the site replaces its folder "
                                    "whole, so give a new or empty folder (or a site made before)");
}

}  // namespace

std::vector<std::string> buildCourseSite(const SiteOptions& o) {
    checkSiteOutput(o);
    // The course: README.md (the outline) as index.html, then NN-name.md in order; then docs/.
    auto markdownFiles = [](const std::string& dir, bool outlineFirst) {
        std::vector<std::string> files;
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.path().extension() == ".md") files.push_back(entry.path().filename().string());
        std::sort(files.begin(), files.end(), [&](const std::string& a, const std::string& b) {
            return outlineFirst && (a == "README.md") != (b == "README.md") ? a == "README.md" : a < b;
        });
        return files;
    };
    const std::vector<std::string> chapterFiles = markdownFiles(o.chaptersDir, true);
    if (chapterFiles.empty() || chapterFiles.front() != "README.md") throw std::runtime_error(o.chaptersDir + " has no README.md (the course outline)");
    std::vector<SitePage> chapters, docs;
    std::vector<std::string> markdown;  // chapters', then docs'
    std::set<std::string> names = {"run.html"};
    auto add = [&](std::vector<SitePage>& group, const std::string& dir, const std::string& file, const std::string& page) {
        const fs::path path = fs::path(dir) / file;
        if (!names.insert(page).second)
            throw std::runtime_error(path.string() + ": its page would be " + page + ", which the site already has; rename it");
        // A FIFO, a device or a folder named NN-x.md is refused by its kind (readInputFile).
        markdown.push_back(readInputFile(path.string(), "page"));
        std::error_code ec;
        group.push_back({fs::canonical(path, ec), page, chapterTitle(markdown.back())});
    };
    for (const auto& c : chapterFiles) add(chapters, o.chaptersDir, c, pageName(c));
    if (!o.docsDir.empty())
        for (const auto& d : markdownFiles(o.docsDir, false)) add(docs, o.docsDir, d, fs::path(d).stem().string() + ".html");
    std::vector<SitePage> pages = chapters;
    pages.insert(pages.end(), docs.begin(), docs.end());

    // Built beside --out (the same file system, so the swap is a rename) under a fresh name.
    const fs::path out = fs::absolute(o.outDir).lexically_normal();
    const fs::path parent = (out.has_filename() ? out : out.parent_path()).parent_path();
    std::string pattern = (parent / (".tmp-" + (out.has_filename() ? out : out.parent_path()).filename().string() + "-XXXXXX")).string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a folder beside '" + o.outDir + "': " + std::strerror(errno));
    TemporaryFolder building{pattern};
    const mode_t mask = ::umask(0);  // mkdtemp's folder is private; the site gets a new folder's usual permissions
    ::umask(mask);
    fs::permissions(building.path, fs::perms(0777 & ~mask));

    std::vector<std::string> written;
    std::ofstream(building.path / kSiteMarker) << "A course site written by llama-site; llama-site may replace this folder.\n";
    writeRunPage({.tracePath = o.tracePath, .chapterBase = "./"}, (building.path / "run.html").string());
    written.push_back("run.html");
    if (!o.liveDir.empty()) {
        // The live page (make web), whole, so the Try-its' "Run it here" links open it.
        fs::copy(o.liveDir, building.path / "live", fs::copy_options::recursive);
        written.push_back("live/index.html");
    }
    SiteImages images(o.chaptersDir, o.docsDir);
    const std::vector<SitePage> numbered(chapters.begin() + 1, chapters.end());
    size_t at = 0;  // into markdown
    for (const std::vector<SitePage>* group : {&chapters, &docs}) {
        for (size_t i = 0; i < group->size(); ++i, ++at) {
            const SitePage& p = (*group)[i];
            const bool chapter = group == &chapters;
            std::string nav = "<div class=\"site-navs\">\n" +
                              navLine("<a href=\"index.html\">Course outline</a>", numbered, p.page, true, " <a href=\"run.html\">The bundled run</a>");
            if (!docs.empty()) nav += navLine("Documentation:", docs, p.page, false);
            nav += "</div>\n";
            // Links go to the page their file makes, wherever it lies (../docs/cli.md from a chapter).
            const fs::path dir = p.source.parent_path();
            const LinkResolver resolve = [&](const std::string& target) -> std::optional<std::string> {
                std::error_code ec;
                const fs::path resolved = fs::weakly_canonical(dir / target, ec);
                const auto page = std::find_if(pages.begin(), pages.end(), [&](const SitePage& q) { return !ec && q.source == resolved; });
                return page == pages.end() ? std::nullopt : std::optional<std::string>(page->page);
            };
            const std::string source = chapter && !o.liveDir.empty() ? addRunHereLinks(markdown[at], p.source.string()) : markdown[at];
            const std::string body = publishImages(bodyHtml(source, resolve, chapter), p.source.filename().string(), images, dir.string());
            AtomicOutputFile page((building.path / p.page).string());
            page.stream() << pageHtml(body, p.title, nav, i > 0 ? &(*group)[i - 1] : nullptr, i + 1 < group->size() ? &(*group)[i + 1] : nullptr);
            page.commit();
            written.push_back(p.page);
        }
    }
    for (const auto& [name, source] : images.files()) {
        fs::copy_file(source, building.path / name);
        written.push_back(name);
    }

    // The swap: the new folder takes --out's name in one step; the old site goes with the temporary name.
    if (::renameat2(AT_FDCWD, building.path.c_str(), AT_FDCWD, out.c_str(), RENAME_NOREPLACE) != 0) {
        if (errno != EEXIST && errno != ENOTEMPTY) throw std::runtime_error("cannot move the site into place at '" + o.outDir + "': " + std::strerror(errno));
        if (::renameat2(AT_FDCWD, building.path.c_str(), AT_FDCWD, out.c_str(), RENAME_EXCHANGE) != 0)
            throw std::runtime_error("cannot swap the new site into '" + o.outDir + "': " + std::strerror(errno) + "; the old site is unchanged");
    }
    return written;  // `building` now names the old site (or nothing) and is removed
}

}  // namespace llama::page
