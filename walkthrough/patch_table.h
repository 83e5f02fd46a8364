#pragma once
// What `patch` prints: the clean and corrupted runs' logit differences, then the share of it each
// patch recovers, by layer and position (or head). The live page prints the same text for a
// `patch` command run in the tab (web/module/live_views.cpp).
#include <string>

#include "steer/activation_patching.h"
#include "tokenizer/tokenizer.h"

namespace llama::cli {

// `site`: "block" or "attention" (the table's heading; heads have their own).
std::string patchTable(const PatchingResult& r, const Tokenizer& tok, const std::string& site, bool heads);

}  // namespace llama::cli
