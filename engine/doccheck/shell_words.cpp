#include "doccheck/shell_words.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace llama {

namespace {

bool isNameChar(char c, bool first) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
}

// Why the command's first word, as typed, is not a program's name: an environment assignment or
// one of bash's reserved words (a quoted one is a name, so the text as typed is what counts).
std::string firstWordProblem(std::string_view line) {
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) return "";
    const std::string_view raw = line.substr(start, line.find_first_of(" \t\n", start) - start);
    size_t name = 0;
    while (name < raw.size() && isNameChar(raw[name], name == 0)) ++name;
    if (name > 0 && name < raw.size() && raw[name] == '=') return fmt::format("it sets the environment variable {} for the command", raw.substr(0, name));
    static constexpr std::array<std::string_view, 22> reserved = {"!",  "[[",   "]]", "case", "coproc", "do",   "done",     "elif",
                                                                   "else", "esac", "fi", "for",  "function", "if", "in", "select",
                                                                   "then", "time", "until", "while", "{", "}"};
    for (const std::string_view r : reserved)
        if (raw == r) return fmt::format("it starts with the shell's reserved word {}", r);
    return "";
}

// What an unquoted special character makes of the line, when it is more than words.
std::string_view unquotedProblem(char c) {
    switch (c) {
        case '|': return "it is a shell pipeline or list (|)";
        case '&': return "it runs commands in the background or in a list (&)";
        case ';': return "it is a list of commands (;)";
        case '<': case '>': return "it redirects input or output (< >)";
        case '(': case ')': return "it runs a subshell (( ))";
        case '*': case '?': case '[': return "a word is a pattern the shell expands to file names (* ? [)";
        case '~': return "a word starts from the home folder (~), which the shell expands";
        case '{': case '}': return "a word holds braces ({ }), which bash expands into several words";
        case '\n': return "it is more than one command (a line break)";
        default: return "";
    }
}

}  // namespace

ShellWords splitShellWords(const std::string& line) {
    ShellWords out;
    auto refuse = [&](std::string reason) {
        out.words.clear();
        out.refusal = std::move(reason);
        return out;
    };
    if (std::string problem = firstWordProblem(line); !problem.empty()) return refuse(std::move(problem));
    std::string word;
    bool inWord = false;  // a word is open (it may be empty: "")
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == '$' || c == '`') return refuse(fmt::format("it asks the shell to expand {} (a variable, arithmetic or a command's output)", c == '$' ? "$" : "`"));
        if (c == '\'') {
            const size_t close = line.find('\'', i + 1);
            if (close == std::string::npos) return refuse("a ' quote is not closed");
            word += line.substr(i + 1, close - i - 1);
            inWord = true;
            i = close;
        } else if (c == '"') {
            for (++i; i < line.size() && line[i] != '"'; ++i) {
                if (line[i] == '$' || line[i] == '`')
                    return refuse(fmt::format("it asks the shell to expand {} inside double quotes", line[i] == '$' ? "$" : "`"));
                const bool escape = line[i] == '\\' && i + 1 < line.size() && std::string_view("$`\"\\\n").find(line[i + 1]) != std::string_view::npos;
                if (escape && line[++i] == '\n') continue;  // a continued line inside the quotes
                word += line[i];
            }
            if (i == line.size()) return refuse("a \" quote is not closed");
            inWord = true;
        } else if (c == '\\') {
            if (i + 1 == line.size()) return refuse("it ends in a \\ that continues it onto no line");
            if (line[++i] != '\n') word += line[i], inWord = true;
        } else if (c == ' ' || c == '\t') {
            if (inWord) out.words.push_back(std::move(word));
            word.clear();
            inWord = false;
        } else if (c == '#' && !inWord) {
            // A comment, to the end of the line; a `\` there continues nothing, so a next line is a second command.
            if (line.find('\n', i) != std::string::npos) return refuse(std::string(unquotedProblem('\n')));
            break;
        } else if (const std::string_view problem = unquotedProblem(c); !problem.empty()) {
            return refuse(std::string(problem));
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord) out.words.push_back(std::move(word));
    return out;
}

}  // namespace llama
