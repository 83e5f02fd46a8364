// A chapter command's words (doccheck/shell_words.h) against the shells that run the chapters:
// each line the splitter takes is run by bash and by sh with `prog` printing its arguments, and
// the words must be theirs; each line it refuses is refused with its reason.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "doccheck/shell_words.h"

using namespace llama;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// The words `shell` gives prog's arguments on `line`, from a script as the chapters' runner writes.
std::vector<std::string> shellsWords(const std::string& shell, const std::string& line) {
    const fs::path script = fs::temp_directory_path() / fmt::format("llama_shell_words_{}.sh", getpid());
    std::ofstream(script) << "prog() { printf '%s\\0' prog \"$@\"; }\n" << line << "\n";
    FILE* pipe = popen(fmt::format("cd / && {} '{}'", shell, script.string()).c_str(), "r");
    REQUIRE(pipe);
    std::string out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
    REQUIRE(pclose(pipe) == 0);
    fs::remove(script);
    std::vector<std::string> words;
    for (size_t at = 0, end; (end = out.find('\0', at)) != std::string::npos; at = end + 1) words.push_back(out.substr(at, end - at));
    return words;
}

}  // namespace

TEST_CASE("shell words: a command is split as bash and sh split it", "[hostile][shell-words]") {
    const std::vector<std::string> lines = {
        R"-(prog --prompt "The cat" -n 2)-",
        R"-(prog 'single $HOME `x` \ "q" \n')-",
        R"-(prog "a\"b" "c\\d" "e\f" "g\$h" "i\`j" "\n")-",
        R"-(prog a\ b \"c\" \\d \'e \#f \$g \*)-",
        R"-(prog "" '' x "")-",
        R"-(prog a"b c"'d e'f)-",
        R"-(prog 'it'\''s')-",
        "prog --prompt \\\n    \"x\" \\\n  -n 1",
        "prog \"a\\\nb\" 'c\\\nd' e\\\nf",
        "prog \"two\nlines\" 'and\nthree'",
        R"-(prog x # a comment; | $(y) `z` *)-",
        R"-(prog a#b "#c")-",
        R"-(prog "*" '?' \[x\] "~" '{a,b}' "a|b;c&d<e>f(g)")-",
        R"-(prog = % ^ @ , : ] --x=a=b -- -)-",
        "prog\ta\t\tb  ",
        R"-(prog "[link](http://example.com)" '<img src=x>' é)-",
        R"-("prog" X=1 'time' \if)-",  // quoted, or not first: a word like any other
    };
    for (const std::string& line : lines) {
        INFO(line);
        const ShellWords split = splitShellWords(line);
        CHECK(split.refusal == "");
        CHECK(split.words == shellsWords("bash", line));
        CHECK(split.words == shellsWords("sh", line));
    }
}

TEST_CASE("shell words: what the shell would expand, or run as more than one command, is refused saying why", "[hostile][shell-words]") {
    const std::vector<std::pair<std::string, std::string>> refused = {
        {"prog $(echo a b)", "expand $"},
        {"prog \"$(echo a b)\"", "expand $ inside double quotes"},
        {"prog `echo a`", "expand `"},
        {"prog \"`echo a`\"", "expand ` inside double quotes"},
        {"prog $HOME", "expand $"},
        {"prog \"$HOME\"", "inside double quotes"},
        {"prog $'a\\nb'", "expand $"},
        {"prog $((1+2))", "expand $"},
        {"prog *.md", "file names"},
        {"prog a?c", "file names"},
        {"prog [ab]", "file names"},
        {"prog ~/x", "home folder"},
        {"prog a{b,c}", "braces"},
        {"prog a | grep b", "pipeline"},
        {"prog a && prog b", "(&)"},
        {"prog a &", "(&)"},
        {"prog a; prog b", "(;)"},
        {"prog > out", "redirects"},
        {"prog 2>&1", "redirects"},
        {"prog <(echo a)", "redirects"},
        {"(prog a)", "subshell"},
        {"prog \"a", "\" quote is not closed"},
        {"prog 'a", "' quote is not closed"},
        {"prog a\nprog b", "more than one command"},
        {"prog a # comment \\\nprog b", "more than one command"},
        {"prog a\\", "ends in a \\"},
        {"X=1 prog a", "environment variable X"},
        {"PATH=\"/x y\" prog", "environment variable PATH"},
        {"time prog a", "reserved word time"},
        {"! prog a", "reserved word !"},
        {"if prog; then prog; fi", "reserved word if"},
        {"{ prog; }", "reserved word {"},
    };
    for (const auto& [line, reason] : refused) {
        INFO(line);
        const ShellWords split = splitShellWords(line);
        CHECK(split.words.empty());
        CHECK_THAT(split.refusal, Contains(reason));
    }
}
