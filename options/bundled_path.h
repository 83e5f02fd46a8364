#pragma once
// Where the project's own files are (the bundled model, the chapters) for the programs' defaults,
// found at run time rather than baked in as the build's absolute source path: beside the program
// or in a folder above it (build/walkthrough/llama-walkthrough finds ../../assets/model), then in
// the working folder. A checkout that moves, or a build copied elsewhere with its assets, still
// finds them.
#include <string>

namespace llama::options {

// The first `relative` (a path such as "assets/model") that exists, looked for from the running
// program's folder upwards, then in the working folder; `relative` itself when none does, so that
// the load's error names the path it looked for.
std::string bundledPath(const std::string& relative);

}  // namespace llama::options
