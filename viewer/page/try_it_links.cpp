#include "page/try_it_links.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>

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

// A Try-it's way into the live page: its address, or why it runs in a terminal only.
struct LiveLink {
    std::string address;  // "" : see reason
    std::string note;     // how the page's run differs from the command: stepped by hand, or not filtered (| tail -1)
    std::string reason;
};

// The words of a command that is `llama-walkthrough ... | FILTER`, FILTER one of the commands that
// keep part of a text (head, tail, grep): the run's words, and the filter as written. Otherwise none.
std::optional<std::pair<std::vector<std::string>, std::string>> filteredRun(const std::string& command) {
    // The last bar: the run's words may hold one in quotes, and an unquoted one the splitter refuses.
    const size_t bar = command.rfind(" | ");
    if (bar == std::string::npos) return std::nullopt;
    const ShellWords run = splitShellWords(command.substr(0, bar)), filter = splitShellWords(command.substr(bar + 3));
    if (!run.refusal.empty() || !filter.refusal.empty() || filter.words.empty()) return std::nullopt;
    static const std::string_view filters[] = {"head", "tail", "grep"};
    if (std::find(std::begin(filters), std::end(filters), filter.words.front()) == std::end(filters)) return std::nullopt;
    return std::make_pair(run.words, command.substr(bar + 1));
}

// The words of a command that is `printf 'SCRIPT' | llama-walkthrough ... --step ...`: the run's
// words without --step (the page steps a run with its buttons), and where the script's
// breakpoints stop it ("scores_softmax in layer 3"; "" for none). Otherwise none.
std::optional<std::pair<std::vector<std::string>, std::string>> steppedRun(const std::string& command) {
    const size_t bar = command.find(" | ");
    if (bar == std::string::npos) return std::nullopt;
    const ShellWords script = splitShellWords(command.substr(0, bar)), run = splitShellWords(command.substr(bar + 3));
    if (!script.refusal.empty() || !run.refusal.empty() || script.words.size() != 2 || script.words[0] != "printf") return std::nullopt;
    std::vector<std::string> words;
    for (const std::string& w : run.words)
        if (w != "--step") words.push_back(w);
    if (words.size() == run.words.size()) return std::nullopt;
    // The script's commands, one a line as printf writes them (the two characters \n end one):
    // `b STAGE [LAYER]` sets a breakpoint.
    const std::string& text = script.words[1];
    std::string stops;
    for (size_t from = 0; from < text.size();) {
        const size_t end = std::min(text.find("\\n", from), text.size());
        std::istringstream line(text.substr(from, end - from));
        std::string key, stage, layer;
        if (line >> key >> stage && key == "b") stops += (stops.empty() ? "" : ", then ") + stage + (line >> layer ? " in layer " + layer : "");
        from = end + 2;
    }
    return std::make_pair(words, stops);
}

LiveLink liveLink(const TryItBlock& block) {
    auto why = [](std::string reason) { return LiveLink{{}, {}, std::move(reason)}; };
    if (block.commands.size() != 1) return why("it runs several commands");
    const std::string& command = block.commands[0];
    const ShellWords split = splitShellWords(command);
    std::vector<std::string> words = split.words;
    std::string note;  // how the page's run differs from the chapter's command
    if (!split.refusal.empty()) {
        if (const auto stepped = steppedRun(command)) {
            // The run without the terminal's stepping: the page's buttons step it.
            words = stepped->first;
            note = "stepped with the page's buttons, not the chapter's commands" +
                   (stepped->second.empty() ? std::string(", which stop at the first stage") : ", which stop at " + stepped->second);
        } else if (const auto filtered = filteredRun(command)) {
            words = filtered->first;
            note = "all of its output: the page does not run " + filtered->second + ", which keeps part of it";
        } else {
            if (command.find("| llama-walkthrough") != std::string::npos && command.find("--step") != std::string::npos)
                return why("it pipes stepping commands into --step and on into another command");
            return why(split.refusal);
        }
    }
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
    return {"live/index.html#cmd=" + percentEncoded(nlohmann::json(args).dump()) + "&expect=" + percentEncoded(expected), note, {}};
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
        const LiveLink link = liveLink(b);
        const std::string note = link.note.empty() ? "" : " <small>(" + htmlEscape(link.note) + ")</small>";
        notes.emplace_back(size_t(b.closeLine - 1), noteBlock(b, !link.address.empty()
                                                                     ? "<a href=\"" + htmlEscape(link.address) + "\">▶ Run it here, in this browser</a>" + note
                                                                     : "<small>Runs in a terminal only: " + htmlEscape(link.reason) + ".</small>"));
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
