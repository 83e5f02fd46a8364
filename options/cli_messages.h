#pragma once
// CLI11's refusals in the program's words. Some of CLI11's texts are meant for the programmer
// ("This should be caught in your main function, see examples" for --help where no help is
// printed) or read as its internals ("--prompt: 1 required TEXT missing", "Could not convert:
// --json = x"); they become the program's. The rest pass as they are: ours (our callbacks'
// ValidationError, "--skip-layer: expected ...") and CLI11's plain ones ("--to is required",
// "--allow-special requires --chat").
#include <CLI/CLI.hpp>

#include <string>

namespace llama::options {

std::string inOurWords(const CLI::ParseError& e);

}  // namespace llama::options
