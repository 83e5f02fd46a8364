#pragma once
// A chapter command line split into words as the shell that runs the Try-its (tests/
// chapters_try_it_test.cpp: sh, and bash for the reader) splits it, for everything that needs its
// words rather than a shell: the course site's "Run it here" links and the live page they open.
// Only a simple command of literal words is split; whatever would make the words depend on the
// shell's state or run more than one program is refused with the reason, never guessed at:
//   quoting: '...' is literal; "..." is literal but for \$ \` \" \\ and \newline; \c outside
//     quotes is c; \newline (a continued line) is dropped outside single quotes;
//   # at the start of a word begins a comment;
//   refused: an unclosed quote; $ and ` outside single quotes (expansions, substitutions);
//     unquoted * ? [ (globs), ~ (home folder), { } (bash's brace expansion), | & ; < > ( )
//     (pipelines, lists, redirections, subshells), an unquoted line break (a second command), a
//     first word NAME=... (an environment assignment), a line that ends in a lone \.
#include <string>
#include <vector>

namespace llama {

struct ShellWords {
    std::vector<std::string> words;
    std::string refusal;  // non-empty: why the line is not a simple command of literal words
};

ShellWords splitShellWords(const std::string& line);

}  // namespace llama
