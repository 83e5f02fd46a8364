#pragma once
// The course site's "Run it here": after each Try-it of a chapter, a link that opens the live page
// (web/, copied into the site as live/) with that exact command and the output the chapter
// recorded, or a line that says why it runs in a terminal only (a pipeline, another subcommand,
// an option the browser build does not take, a model file that is not on the site). Whether the
// page takes a command is asked of the page's own option parser (options/live_run_options.h).
#include <string>

namespace llama::page {

// `markdown` (the chapter file at `path`) with the links and notes added after its Try-its.
std::string addRunHereLinks(const std::string& markdown, const std::string& path);

}  // namespace llama::page
