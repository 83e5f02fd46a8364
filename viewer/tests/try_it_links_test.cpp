// The course site's "Run it here" (page/try_it_links.h) on chapters written to break it: the words
// of a command in its link are the shell's, a command the page cannot run exactly gets the reason
// as text, and each note stays in the list item and <details> its Try-it is in.
#ifdef LLAMA_HAVE_SITE
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "page/course_site.h"
#include "page/try_it_links.h"

using namespace llama;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// The chapter as the site shows it: its Try-its' notes added, then rendered.
std::string sitePage(const std::string& markdown) {
    const fs::path path = fs::temp_directory_path() / ("llama_try_it_links_" + std::to_string(getpid()) + ".md");
    std::ofstream(path) << markdown;
    const std::string body = page::chapterBody(page::addRunHereLinks(markdown, path.string()), {"01-one.md"}, false);
    fs::remove(path);
    return body;
}

// The words in a "Run it here" address: #cmd=<JSON, percent-encoded>&amp;expect=...
std::vector<std::string> linkWords(const std::string& html) {
    const size_t from = html.find("#cmd=") + 5, to = html.find("&amp;expect=", from);
    REQUIRE(to != std::string::npos);
    std::string json;
    for (size_t i = from; i < to; ++i) {
        if (html[i] == '%') json += char(std::stoi(html.substr(i + 1, 2), nullptr, 16)), i += 2;
        else json += html[i];
    }
    return nlohmann::json::parse(json).get<std::vector<std::string>>();
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("Run it here: the shell's words in the link, the reason as text, the note in its Try-it's block", "[hostile][site][try-it]") {
    const std::string page = sitePage(
        "# One\n\n"
        "1. An exercise.\n\n"
        "   <details><summary>Show check</summary>\n\n"
        "   <!-- try-it -->\n"
        "   ```console\n"
        "   $ \"[x](http://evil.example) <img src=x> *em*\" --prompt hi\n"
        "   out\n"
        "   ```\n"
        "   </details>\n\n"
        "2. The next exercise.\n\n"
        "<!-- try-it -->\n"
        "```console\n"
        "$ llama-walkthrough -q --prompt \"a\\\"b \\\\ \\c \\$ [y](http://e.example)\" \\\n"
        "    -n 1 # two words\n"
        "text\n"
        "```\n\n"
        "- An item.\n\n"
        "  <!-- try-it -->\n"
        "  ```console\n"
        "  $ llama-walkthrough --prompt \"$(cat x)\" -n 1\n"
        "  ```\n\n"
        "The end.\n");
    INFO(page);
    // The first word, shown as text: no link, image or emphasis made of it.
    CHECK_THAT(page, Contains("Runs in a terminal only: it runs [x](http://evil.example) &lt;img src=x&gt; *em*, not a model run."));
    CHECK_THAT(page, !Contains("http://evil.example\"") && !Contains("<img") && !Contains("<em>") && !Contains("http://e.example\""));
    // ...inside the <details> of the first item, and the list goes on around it.
    const size_t note = page.find("Runs in a terminal only: it runs [x]");
    CHECK(page.find("<details>") < note);
    CHECK(note < page.find("</details>"));
    CHECK(page.find("</details>") < page.find("The next exercise"));
    CHECK(count(page, "<ol>") == 1);
    // The model run: one link, its words bash's (tests/doccheck_shell_words_test.cpp checks the splitter against bash).
    REQUIRE(count(page, "▶ Run it here") == 1);
    CHECK(linkWords(page) == std::vector<std::string>{"-q", "--prompt", "a\"b \\ \\c $ [y](http://e.example)", "-n", "1"});
    // A substitution the page cannot run: the reason, inside the bullet's item.
    const size_t refused = page.find("Runs in a terminal only: it asks the shell to expand $ inside double quotes.");
    REQUIRE(refused != std::string::npos);
    CHECK(page.rfind("<li>", refused) > page.find("<ul>"));
    CHECK(refused < page.find("</ul>"));
}
TEST_CASE("Run it here: batch, patch and tokenize commands link to the page - what it cannot run says why in the learner's terms", "[site][try-it]") {
    const std::string page = sitePage(
        "# One\n\n"
        "<!-- try-it -->\n```console\n$ llama-walkthrough batch -q -p \"And God said\" -p \"In the beginning\" --parallel 2 -n 12\n[1] x\n```\n\n"
        "<!-- try-it -->\n```console\n$ llama-walkthrough patch --clean \"a b\" --corrupt \"a c\" --answer \" d\"\n```\n\n"
        "<!-- try-it -->\n```console\n$ llama-walkthrough tokenize \"a   b\"\n```\n\n"
        "<!-- try-it -->\n```console\n$ llama-walkthrough batch -q -p x --keep 2\n```\n\n"
        "<!-- try-it -->\n```console\n$ llama-walkthrough patch --clean x --corrupt y --answer z --csv out.csv\n```\n\n"
        "<!-- try-it -->\n```console\n$ llama-walkthrough inspect\n```\n\n"
        "<!-- try-it -->\n```console\n$ llama-walkthrough --synthetic tinyllama-1.1b --dry-run -n 0\n```\n\n"
        "<!-- try-it -->\n```console\n$ printf 'b sample\\nc\\nb qkv 2\\nc\\nq\\n' | llama-walkthrough -q --step --prompt \"The cat\" -n 1\n```\n\n"
        "<!-- try-it -->\n```console\n$ printf 'q\\n' | llama-walkthrough batch -q -p x --step\n```\n\n"
        "<!-- try-it -->\n```console\n$ printf 'q\\n' | llama-walkthrough -q --step -p x | grep y\n```\n\n"
        "<!-- try-it -->\n```console\n$ llama-walkthrough tokenize \"LORD | x\" | tail -8\n```\n\n"
        "<!-- try-it -->\n```console\n$ llama-walkthrough inspect | grep x\n```\n\n"
        "<!-- try-it -->\n```console\n$ llama-walkthrough tokenize x | sort\n```\n");
    INFO(page);
    // The three commands the page runs: links with the subcommand first, as the module's parser takes them.
    REQUIRE(count(page, "▶ Run it here") == 6);
    CHECK(linkWords(page) == std::vector<std::string>{"batch", "-q", "-p", "And God said", "-p", "In the beginning", "--parallel", "2", "-n", "12"});
    CHECK_THAT(page, Contains("%5B%22patch%22%2C%22--clean%22%2C%22a%20b%22"));
    CHECK_THAT(page, Contains("%5B%22tokenize%22%2C%22a%20%20%20b%22%5D"));
    // A run piped into a filter that keeps part of its output: the run, the filter named beside the link.
    CHECK_THAT(page, Contains("%5B%22tokenize%22%2C%22LORD%20%7C%20x%22%5D"));
    CHECK_THAT(page, Contains("(all of its output: the page does not run | tail -8, which keeps part of it)"));
    // Not a filter's: a pipeline of a command the page does not run, or into another kind of command.
    CHECK(count(page, "Runs in a terminal only: it is a shell pipeline or list (|).") == 1);
    CHECK_THAT(page, Contains("Runs in a terminal only: it describes a model file on disk (inspect), which the page does not show."));
    // A batch the CLI refuses is refused with the CLI's message; an option that writes a file, saying so.
    CHECK_THAT(page, Contains("Runs in a terminal only: the browser build does not take it (--keep applies to --context-shift: give both or neither)."));
    CHECK_THAT(page, Contains("Runs in a terminal only: it writes a CSV file (--csv); the page shows the same table and its heatmap."));
    // The rest in one plain sentence each.
    CHECK_THAT(page, Contains("Runs in a terminal only: it describes a model file on disk (inspect), which the page does not show."));
    CHECK_THAT(page, Contains("Runs in a terminal only: it prints shapes without computing (--dry-run), which the page does not do."));
    // Stepping commands piped into --step: the run without --step, stepped by the page's buttons,
    // the script's breakpoints named; piped on into another command, a terminal's.
    CHECK_THAT(page, Contains("%5B%22-q%22%2C%22--prompt%22%2C%22The%20cat%22%2C%22-n%22%2C%221%22%5D"));
    CHECK_THAT(page, Contains("(stepped with the page&#39;s buttons, not the chapter&#39;s commands, which stop at sample, then qkv in layer 2)"));
    CHECK_THAT(page, Contains("(stepped with the page&#39;s buttons, not the chapter&#39;s commands, which stop at the first stage)"));
    CHECK_THAT(page, Contains("Runs in a terminal only: it pipes stepping commands into --step and on into another command."));
}
#endif
