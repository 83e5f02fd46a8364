#pragma once
// The course site's "Run it here": after each Try-it of a chapter, a link that opens the live page
// (web/, copied into the site as live/) with that exact command and the output the chapter
// recorded, or a line that says why it runs in a terminal only (a pipeline, another subcommand,
// an option the browser build does not take, a model file that is not on the site). The command's
// words are the shell's (doccheck/shell_words.h: what the page cannot run exactly is refused, the
// reason shown); whether the page takes them is asked of its own option parser
// (options/live_run_options.h).
#include <string>

namespace llama::page {

// `markdown` (the chapter file at `path`) with the links and notes added after its Try-its.
std::string addRunHereLinks(const std::string& markdown, const std::string& path);

}  // namespace llama::page
