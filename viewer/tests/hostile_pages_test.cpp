// Pages made from strangers' files (issue 36): a trace whose attention tensors do not fit each
// other, text that would break out of the page's script element, the attention arithmetic a
// page embeds, and a course whose chapters name files outside it.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "page/run_page.h"
#include "state/attention_explain.h"
#include "trace_edit.h"
#ifdef LLAMA_HAVE_SITE
#include "page/course_site.h"
#include "test_files.h"
#endif

using namespace llama;
using Catch::Contains;
using Catch::StartsWith;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("llama_hostile_pages_" + std::to_string(getpid()));
    fs::create_directories(dir);
    return dir / name;
}

// The bundled model's run with every attention cell's inputs (xq, keys, the mask), made once.
const std::string& baseTrace() {
    static const std::string path = [] {
        const std::string p = scratch("base.trace").string();
        const CliRun r = runWalkthrough("--model " ASSETS_DIR "/model -p 'In the beginning' -n 2 -q --trace-presoftmax --trace " + p);
        REQUIRE(r.exitCode == 0);
        return p;
    }();
    return path;
}

// The JSON in the page's data element.
std::string dataSlot(const std::string& page) {
    const size_t element = page.find("<script type=\"application/json\" id=\"run-data\"");
    REQUIRE(element != std::string::npos);
    const size_t begin = page.find('>', element) + 1, end = page.find("</script>", begin);
    REQUIRE(end != std::string::npos);
    return page.substr(begin, end - begin);
}

}  // namespace

TEST_CASE("trace reader: a step's attention tensors must fit each other, or the trace is refused by record and tensor", "[hostile][trace]") {
    // Each damage keeps every tensor's own bytes consistent, so only the relation between tensors is wrong.
    SECTION("a mask narrower than the scores it is added to") {
        test::EditableTrace t = test::EditableTrace::read(baseTrace());
        for (auto& mask : t.records[t.find("mask")].json["tensors"]) {
            if (mask["name"] != "mask") continue;
            const int64_t rows = mask["shape"][0], positions = mask["shape"][1];
            mask["shape"] = {rows, positions - 1};
            if (mask.contains("values")) mask["values"]["bytes"] = rows * (positions - 1) * 2;
        }
        const std::string path = scratch("narrow_mask.trace").string();
        t.write(path);
        CHECK_THROWS_WITH(readTrace(path), Contains(path) && Contains("record") && Contains("as tensor 'mask' of record"));
        // The page (export-html, llama-site) refuses it the same way instead of reading past the mask.
        CHECK_THROWS_AS(page::runPageHtml({.tracePath = path}), TraceError);
    }
    SECTION("queries whose head size is not the model's") {
        test::EditableTrace t = test::EditableTrace::read(baseTrace());
        for (auto& tensor : t.records[t.find("transposes")].json["tensors"])
            if (tensor["name"] == "xq") {
                const int64_t h = tensor["shape"][0], r = tensor["shape"][1], d = tensor["shape"][2];
                tensor["shape"] = {h, r * 2, d / 2};
            }
        const std::string path = scratch("xq.trace").string();
        t.write(path);
        CHECK_THROWS_WITH(readTrace(path), Contains(path) && Contains("STAG transposes") && Contains("tensor 'xq'") && Contains("expected ["));
    }
    SECTION("END token lists longer than the context, ids beyond the vocabulary, a negative seed") {
        test::EditableTrace t = test::EditableTrace::read(baseTrace());
        const int context = t.meta().json["model"]["args"]["max_seq_len"];
        const nlohmann::json token = t.end().json["promptTokens"][0];
        t.end().json["promptTokens"] = nlohmann::json::array();
        for (int i = 0; i <= context; ++i) t.end().json["promptTokens"].push_back(token);
        const std::string path = scratch("bounds.trace").string();
        t.write(path);
        CHECK_THROWS_WITH(readTrace(path), Contains("promptTokens") && Contains(std::to_string(context + 1) + " tokens"));
        t = test::EditableTrace::read(baseTrace());
        const int vocab = t.meta().json["model"]["args"]["vocab_size"];
        t.end().json["generatedTokens"][0]["id"] = vocab;
        t.write(path);
        CHECK_THROWS_WITH(readTrace(path), Contains(fmt::format("field 'generatedTokens[0].id' is {}: expected a whole number from 0 to {}",
                                                                vocab, vocab - 1)));
        t = test::EditableTrace::read(baseTrace());
        t.meta().json["run"]["seed"] = -1;
        t.write(path);
        CHECK_THROWS_WITH(readTrace(path), Contains("(META): field 'run.seed' is -1: expected a whole number from 0 to 18446744073709551615"));
    }
}

TEST_CASE("run page: every text field is embedded for the script context, < > & as Unicode escapes", "[hostile][page]") {
    // What ends a script element, opens a comment or an element, or quotes, in HTML, JS and JSON.
    const std::string hostile = "</script><script>alert(1)</script><!--<b>&amp;'\"\\ \u2028\u2029 -->";
    test::EditableTrace t = test::EditableTrace::read(baseTrace());
    t.meta().json["run"]["prompt"] = hostile;
    t.meta().json["model"]["path"] = hostile;
    t.meta().json["model"]["format"] = hostile;
    t.records[t.find("mask")].json["message"] = hostile;
    for (auto& r : t.records)
        if (r.json.contains("top") && !r.json["top"].empty()) r.json["top"][0]["piece"] = hostile;
    t.end().json["text"] = hostile;
    t.end().json["stopReason"] = hostile;
    t.end().json["promptTokens"][0]["piece"] = hostile;
    t.end().json["generatedTokens"][0]["piece"] = hostile;
    const std::string path = scratch("text.trace").string();
    t.write(path);

    const std::string base = "./<!--</script>/";
    const std::string page = page::runPageHtml({.tracePath = path, .chapterBase = base});
    const std::string slot = dataSlot(page);
    CHECK(slot.find('<') == std::string::npos);
    CHECK(slot.find('>') == std::string::npos);
    const nlohmann::json data = nlohmann::json::parse(slot);  // and it is JSON whose strings are the text as it was
    CHECK(data["run"]["prompt"] == hostile);
    CHECK(data["run"]["text"] == hostile);
    CHECK(data["run"]["stopReason"] == hostile);
    CHECK(data["model"]["path"] == fs::path(hostile).filename().string());  // its own name: no folders of the exporting machine
    CHECK(data["model"]["format"] == hostile);
    CHECK(data["trace"] == "text.trace");
    CHECK(data["tokens"][0]["piece"] == hostile);
    bool message = false, link = false;
    for (const auto& s : data["stages"]) message = message || s["message"] == hostile;
    for (const auto& c : data["catalog"]) link = link || (c.contains("link") && std::string(c["link"]).starts_with(base));
    CHECK(message);
    CHECK(link);
    // The page's only script elements are its guard, its data and its own script; the title is escaped.
    size_t scripts = 0;
    for (size_t at = page.find("</script>"); at != std::string::npos; at = page.find("</script>", at + 1)) ++scripts;
    CHECK(scripts == 3);
    CHECK_THAT(page, Contains("<title>Llama run: &lt;/script&gt;&lt;script&gt;"));
    // The CSP runs the page's script by its hash, nothing inline besides.
    const size_t scriptSrc = page.find("script-src ");
    REQUIRE(scriptSrc != std::string::npos);
    const std::string directive = page.substr(scriptSrc, page.find(';', scriptSrc) - scriptSrc);
    CHECK_THAT(directive, StartsWith("script-src 'sha256-") && !Contains("unsafe"));
    // A chapter base that would run script is refused before any work.
    CHECK_THROWS_WITH(page::runPageHtml({.tracePath = path, .chapterBase = "JavaScript:alert(1)//"}), Contains("--chapter-base"));
    CHECK_THROWS_WITH(page::checkChapterBase(" data:text/html,x"), Contains("--chapter-base"));
    CHECK_NOTHROW(page::checkChapterBase("https://example.org/course/"));
    CHECK_NOTHROW(page::checkChapterBase("../site/"));
}

TEST_CASE("run page: each attention row is computed once, and agrees with every cell's own arithmetic", "[page][attention]") {
    // 2 heads, 3 query rows, head size 4, 5 positions; a causal mask.
    Tensor xq({2, 3, 4}, DType::F32), keys({2, 4, 5}, DType::F32), mask({3, 5}, DType::F32);
    for (int64_t i = 0; i < xq.numel(); ++i) xq.mutableData<float>()[i] = float((i * 7) % 11) / 5 - 1;
    for (int64_t i = 0; i < keys.numel(); ++i) keys.mutableData<float>()[i] = float((i * 5) % 13) / 6 - 1;
    for (int r = 0; r < 3; ++r)
        for (int p = 0; p < 5; ++p) mask.mutableData<float>()[r * 5 + p] = p > r + 2 ? -INFINITY : 0.0f;
    for (int h = 0; h < 2; ++h)
        for (int r = 0; r < 3; ++r) {
            const viewer::RowExplanation row = viewer::explainAttentionRow(xq, keys, &mask, h, r);
            double total = 0;
            for (int c = 0; c < 5; ++c) {
                const viewer::CellExplanation cell = viewer::explainAttentionCell(xq, keys, &mask, h, r, c);
                CHECK(row.dot[size_t(c)] == cell.dot);
                CHECK(row.probability(size_t(c)) == cell.probability);
                total += cell.probability;
            }
            CHECK(total == Approx(1.0));
        }
    // A mask that does not fit the row is refused, never read past.
    Tensor small({2, 5}, DType::F32);
    CHECK_THROWS_AS(viewer::explainAttentionRow(xq, keys, &small, 0, 2), std::invalid_argument);
}

TEST_CASE("run page: an export asked to stop ends at once and writes nothing", "[page][interrupt]") {
    const fs::path out = scratch("cancelled.html");
    fs::remove(out);
    CHECK_THROWS_AS(page::writeRunPage({.tracePath = baseTrace(), .cancelled = [] { return true; }}, out.string()), page::ExportCancelled);
    CHECK_FALSE(fs::exists(out));
    for (const auto& entry : fs::directory_iterator(out.parent_path())) CHECK_FALSE(entry.path().filename().string().starts_with("cancelled.html"));
}

TEST_CASE("run page: a run stopped by Ctrl-C keeps its trace, and its --html page is not written", "[page][interrupt]") {
    const fs::path dir = scratch("interrupted");
    fs::remove_all(dir);
    fs::create_directories(dir);
    // The stepper holds the run at its first stage (stdin stays open) until the Ctrl-C.
    const std::string command = heldAtFirstStage(std::string(WALKTHROUGH_EXE) + " --model " ASSETS_DIR "/model -p Hi -n 2 -q --step --html " +
                                                     (dir / "run.html").string(),
                                                 dir / "stdin", dir / "out.txt") +
                                "kill -INT $pid; wait $pid";
    runShell(command);
    const std::string out = readFile(dir / "out.txt");
    INFO(out);
    CHECK_THAT(out, Contains("Interrupted: no page was written") && Contains("export-html"));
    CHECK(fs::is_regular_file(dir / "run.trace"));
    CHECK_FALSE(fs::exists(dir / "run.html"));
}

#ifdef LLAMA_HAVE_SITE
namespace {
// A course folder: the outline and one chapter with `chapter` as its text.
fs::path course(const std::string& name, const std::string& chapter) {
    const fs::path dir = scratch(name) / "chapters";
    fs::remove_all(dir.parent_path());
    fs::create_directories(dir);
    std::ofstream(dir / "README.md") << "# Outline\n\n[one](01-one.md)\n";
    std::ofstream(dir / "01-one.md") << chapter;
    return dir;
}

std::vector<std::string> buildSite(const fs::path& chapters, const fs::path& out) {
    return page::buildCourseSite({.chaptersDir = chapters.string(), .tracePath = baseTrace(), .outDir = out.string()});
}
}  // namespace

TEST_CASE("llama-site publishes only the course's own images, under names it chooses", "[hostile][site]") {
    std::ofstream(scratch("outside.png")) << "\x89PNG outside the course";
    for (const std::string src : {"/etc/passwd", "../../outside.png", "../chapters/../../outside.png", "page.html", "missing.png"}) {
        const fs::path chapters = course("images", "# One\n\n![figure](" + src + ")\n");
        std::ofstream(chapters / "page.html") << "<script>alert(1)</script>";
        const fs::path out = chapters.parent_path() / "site";
        CHECK_THROWS_WITH(buildSite(chapters, out), Contains("01-one.md") && Contains(src) && Contains("publishes only images of the course"));
        CHECK_FALSE(fs::exists(out));
    }
    // A figure of the course is copied under the site's name, its src decoded from md4c's escapes first.
    const fs::path chapters = course("figure", "# One\n\n![a figure](a&b%20c.png) ![again](./a&b%20c.png)\n");
    std::ofstream(chapters / "a&b c.png") << "\x89PNG a figure";
    const fs::path out = chapters.parent_path() / "site";
    const auto files = buildSite(chapters, out);
    CHECK(std::count(files.begin(), files.end(), "figure-a_b_c.png") == 1);
    CHECK_THAT(readFile(out / "01-one.html"), Contains("<img src=\"figure-a_b_c.png\"") && !Contains("a&amp;b"));
    CHECK(readFile(out / "figure-a_b_c.png") == "\x89PNG a figure");
    // Raw HTML images of another form (upper case, src not first, unquoted, unterminated) are shown as text, never loaded.
    const fs::path raw = course("raw", "# One\n\n<IMG SRC=/etc/passwd> <img alt=\"\" src=\"/etc/passwd\"> <img src=/etc/passwd>\n\n<img src=\"x\n\ny\">\n");
    buildSite(raw, raw.parent_path() / "site");
    const std::string page = readFile(raw.parent_path() / "site" / "01-one.html");
    CHECK_THAT(page, Contains("&lt;IMG SRC=/etc/passwd>") && Contains("&lt;img alt=") && Contains("&lt;img src=/etc/passwd>"));
    CHECK_THAT(page, !Contains("<img") && !Contains("<IMG"));
}

TEST_CASE("llama-site escapes every name it shows and refuses chapters that are not files", "[hostile][site]") {
    const fs::path chapters = course("names", "# One <b>bold</b> & \"quoted\"\n\ntext\n");
    std::ofstream(chapters / "02-\"><img src=x onerror=alert(1)>.md") << "# Two\n";
    const fs::path out = chapters.parent_path() / "site";
    buildSite(chapters, out);
    const std::string index = readFile(out / "index.html");
    CHECK_THAT(index, !Contains("\"><img") && Contains("href=\"02-%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E.html\""));
    CHECK_THAT(index, Contains("One &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;"));
    CHECK(fs::is_regular_file(out / "02-\"><img src=x onerror=alert(1)>.html"));
    // The site's pages run no script at all.
    CHECK_THAT(index, Contains("content=\"default-src 'none';") && !Contains("script-src"));

    fs::remove(chapters / "02-\"><img src=x onerror=alert(1)>.md");
    std::ofstream(chapters / "index.md") << "# Not the outline\n";
    CHECK_THROWS_WITH(buildSite(chapters, out), Contains("index.md") && Contains("rename"));
    fs::remove(chapters / "index.md");
    fs::create_directory(chapters / "02-folder.md");
    CHECK_THROWS_WITH(buildSite(chapters, out), Contains("02-folder.md") && Contains("is a folder"));
    fs::remove(chapters / "02-folder.md");
    REQUIRE(::mkfifo((chapters / "02-fifo.md").c_str(), 0600) == 0);
    CHECK_THROWS_WITH(buildSite(chapters, out), Contains("02-fifo.md") && Contains("FIFO"));  // at once, not waiting for a writer
}

TEST_CASE("llama-site: long headings and links are read without recursion", "[hostile][site]") {
    const std::string heading = "# " + std::string(40000, 'h') + "\n";
    CHECK(page::chapterTitle(heading).size() == 40000);
    const std::string body = page::chapterBody("[x](" + std::string(200000, 'l') + ".md) <!-- stage: " + std::string(50000, 'k') + " -->\n",
                                               {"README.md"}, true);
    CHECK_THAT(body, Contains("repo-link"));
}
#endif
