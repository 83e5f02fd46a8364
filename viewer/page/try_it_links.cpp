#include "page/try_it_links.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <variant>

#include "doccheck/shell_words.h"
#include "doccheck/try_it.h"
#include "options/live_run_options.h"
#include "page/run_page.h"

namespace llama::page {

namespace {

// Everything but letters, digits and -._~ as %XX: the words in a link's address.
std::string percentEncoded(const std::string& s) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') out += char(c);
        else out += '%', out += hex[c >> 4], out += hex[c & 15];
    }
    return out;
}

// Why a command the page's parser refuses runs in a terminal only, in the learner's terms where
// the command is one the page knows: a subcommand it does not run, or an option it has no use for.
std::string notTaken(const std::vector<std::string>& args, const std::string& parserMessage) {
    static const std::pair<std::string_view, std::string_view> subcommands[] = {
        {"inspect", "it describes a model file on disk (inspect), which the page does not show"},
        {"perplexity", "it reads a text file (perplexity), and the page has no files but the model"},
        {"bench", "it measures this machine's speed (bench); the page prints this tab's tok/s under every run"},
        {"convert", "it writes model files (convert)"},
        {"train", "it trains and writes a model to disk (train); the page's Train panel trains one in the tab"},
        {"tokenizer-train", "it learns a tokenizer from a text file and writes it (tokenizer-train)"},
        {"cvector", "it reads prompt files and writes a control vector (cvector)"},
        {"diff", "it compares trace files (diff), which the page does not have"},
        {"export-html", "it reads a trace file (export-html); the page's Save page writes the same page"},
        {"compare-doc", "it compares a document with a debug log (compare-doc)"},
    };
    if (!args.empty())
        for (const auto& [name, reason] : subcommands)
            if (args.front() == name) return std::string(reason);
    static const std::pair<std::string_view, std::string_view> options[] = {
        {"--step", "it reads stepping commands from the terminal (--step); the page's Step buttons step a run by hand"},
        {"--dry-run", "it prints shapes without computing (--dry-run), which the page does not do"},
        {"--trace", "it writes a trace file (--trace); the page records every run itself (Save trace)"},
        {"--html", "it writes a page file (--html); the page's Save page writes the same"},
        {"--debug-log", "it writes a debug log file (--debug-log)"},
        {"--csv", "it writes a CSV file (--csv); the page shows the same table and its heatmap"},
    };
    for (const auto& [name, reason] : options)
        if (std::find(args.begin(), args.end(), name) != args.end()) return std::string(reason);
    return "the browser build does not take it (" + parserMessage + ")";
}

// The live page's address for the block, or why it runs in a terminal only.
std::variant<std::string, std::string> liveLink(const TryItBlock& block) {
    using Reason = std::variant<std::string, std::string>;
    auto why = [](std::string reason) { return Reason(std::in_place_index<1>, std::move(reason)); };
    if (block.commands.size() != 1) return why("it runs several commands");
    const ShellWords split = splitShellWords(block.commands[0]);
    if (!split.refusal.empty()) {
        if (block.commands[0].find("| llama-walkthrough") != std::string::npos && block.commands[0].find("--step") != std::string::npos)
            return why("it pipes stepping commands into --step; the page's Step buttons step the same run by hand");
        return why(split.refusal);
    }
    const std::vector<std::string>& words = split.words;
    if (words.empty() || !(words.front() == "llama-walkthrough" || words.front().ends_with("/llama-walkthrough")))
        return why("it runs " + (words.empty() ? std::string("nothing") : words.front()) + ", not a model run");
    const std::vector<std::string> args(words.begin() + 1, words.end());
    try {
        const options::ModelChoice m = options::modelChoice(options::parseLiveCommand(args));
        if (!m.model.empty() && m.model != "assets/model" && m.model != "assets/model/")
            return why("it reads " + m.model + ", which is not on this site (open it with the page's model button)");
        if (!m.synthetic.empty() && m.synthetic != "tiny") return why("the synthetic preset " + m.synthetic + " does not fit in a browser tab");
        if (!m.tokenizer.empty()) return why("it reads " + m.tokenizer);
    } catch (const std::invalid_argument& e) {
        return why(notTaken(args, e.what()));
    }
    std::string expected;
    for (const std::string& l : block.expected) expected += l + "\n";
    return Reason(std::in_place_index<0>, "live/index.html#cmd=" + percentEncoded(nlohmann::json(args).dump()) + "&expect=" + percentEncoded(expected));
}

// A paragraph of HTML after the block's closing fence, indented as the fences are so it stays in
// the list item (and <details>) the Try-it is in. An HTML block, so Markdown never reads the
// command's words in it; escaped, with line breaks as references so no blank line can end it.
std::string noteBlock(const TryItBlock& block, const std::string& html) {
    std::string oneLine;
    for (char c : html) oneLine += c == '\n' ? std::string("&#10;") : std::string(1, c);
    return "\n" + std::string(size_t(block.indent), ' ') + "<p>" + oneLine + "</p>\n";
}

}  // namespace

std::string addRunHereLinks(const std::string& markdown, const std::string& path) {
    std::vector<std::string> lines;
    std::istringstream in(markdown);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::vector<std::pair<size_t, std::string>> notes;  // after line index: the paragraph
    for (const TryItBlock& b : parseTryItBlocks(path)) {
        const auto link = liveLink(b);
        notes.emplace_back(size_t(b.closeLine - 1), noteBlock(b, link.index() == 0 ? "<a href=\"" + htmlEscape(std::get<0>(link)) + "\">▶ Run it here, in this browser</a>"
                                                                                   : "<small>Runs in a terminal only: " + htmlEscape(std::get<1>(link)) + ".</small>"));
    }
    std::string out;
    size_t next = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        out += lines[i] + "\n";
        if (next < notes.size() && notes[next].first == i) out += notes[next++].second;
    }
    return out;
}

}  // namespace llama::page
