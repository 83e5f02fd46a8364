#include "page/try_it_links.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <sstream>
#include <stdexcept>
#include <variant>

#include "doccheck/try_it.h"
#include "options/live_run_options.h"

namespace llama::page {

namespace {

// A Try-it command as words, the way the shell reads these simple lines (spaces separate, quotes
// group), or nothing when it is more than one command with options (pipes, redirections, `&&`,
// substitutions), which only a terminal runs.
std::optional<std::vector<std::string>> simpleWords(const std::string& line) {
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    char quote = 0;
    for (char c : line) {
        if (quote) {
            if (c == quote) quote = 0;
            else word += c;
        } else if (c == '"' || c == '\'') {
            quote = c;
            inWord = true;
        } else if (c == ' ' || c == '\t') {
            if (inWord) words.push_back(word), word.clear();
            inWord = false;
        } else if (std::string_view("|&;<>$`\\*?").find(c) != std::string_view::npos) {
            return std::nullopt;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (quote) return std::nullopt;
    if (inWord) words.push_back(word);
    return words;
}

// Everything but letters, digits and -._~ as %XX: the address of a link in Markdown and HTML.
std::string percentEncoded(const std::string& s) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') out += char(c);
        else out += '%', out += hex[c >> 4], out += hex[c & 15];
    }
    return out;
}

std::string htmlText(const std::string& s) {
    std::string out;
    for (char c : s) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
    return out;
}

// The live page's address for the block, or why it runs in a terminal only.
std::variant<std::string, std::string> liveLink(const TryItBlock& block) {
    using Reason = std::variant<std::string, std::string>;
    auto why = [](std::string reason) { return Reason(std::in_place_index<1>, std::move(reason)); };
    if (block.commands.size() != 1) return why("it runs several commands");
    const auto words = simpleWords(block.commands[0]);
    if (!words) return why("it is a shell pipeline");
    if (words->empty() || !(words->front() == "llama-walkthrough" || words->front().ends_with("/llama-walkthrough")))
        return why("it runs " + (words->empty() ? std::string("nothing") : words->front()) + ", not a model run");
    const std::vector<std::string> args(words->begin() + 1, words->end());
    try {
        const options::LiveRunRequest r = options::parseLiveRun(args);
        if (!r.model.model.empty() && r.model.model != "assets/model" && r.model.model != "assets/model/")
            return why("it reads " + r.model.model + ", which is not on this site (open it with the page's model button)");
        if (!r.model.synthetic.empty() && r.model.synthetic != "tiny") return why("the synthetic preset " + r.model.synthetic + " does not fit in a browser tab");
        if (!r.model.tokenizer.empty()) return why("it reads " + r.model.tokenizer);
    } catch (const std::invalid_argument& e) {
        return why(std::string("the browser build does not take it (") + e.what() + ")");
    }
    std::string expected;
    for (const std::string& l : block.expected) expected += l + "\n";
    return Reason(std::in_place_index<0>, "live/index.html#cmd=" + percentEncoded(nlohmann::json(args).dump()) + "&expect=" + percentEncoded(expected));
}

}  // namespace

std::string addRunHereLinks(const std::string& markdown, const std::string& path) {
    std::vector<std::string> lines;
    std::istringstream in(markdown);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::vector<std::pair<size_t, std::string>> notes;  // after line index: the paragraph
    for (const TryItBlock& b : parseTryItBlocks(path)) {
        size_t close = size_t(b.line);  // b.line is the opening fence, 1-based: the next line on
        while (close < lines.size() && !lines[close].starts_with("```")) ++close;
        const auto link = liveLink(b);
        notes.emplace_back(close, link.index() == 0 ? "[▶ Run it here, in this browser](" + std::get<0>(link) + ")"
                                                    : "<small>Runs in a terminal only: " + htmlText(std::get<1>(link)) + ".</small>");
    }
    std::string out;
    size_t next = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        out += lines[i] + "\n";
        if (next < notes.size() && notes[next].first == i) out += "\n" + notes[next++].second + "\n";
    }
    return out;
}

}  // namespace llama::page
