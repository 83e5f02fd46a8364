#include "option_scope.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "options/option_combinations.h"

namespace llama::cli {

namespace {
using Names = std::vector<std::string_view>;

// The main command's options each subcommand applies. bench binds the model options to the same
// settings as a run (`--model m.gguf bench` is `bench --model m.gguf`); --threads sizes the one
// thread pool, which the subcommands that run the model use. Any other subcommand applies none.
const std::vector<std::pair<std::string_view, Names>> kApplied = {
    {"bench", {"--model", "--synthetic", "--tokenizer", "--lora", "--seed", "--threads", "--max-seq-len"}},
    {"batch", {"--threads"}},
    {"convert", {"--threads"}},
    {"cvector", {"--threads"}},
    {"patch", {"--threads"}},
    {"perplexity", {"--threads"}},
};
}  // namespace

void requireOptionsApply(const CLI::App& app) {
    for (const CLI::App* sub : app.get_subcommands()) {
        const auto applied = std::find_if(kApplied.begin(), kApplied.end(), [&](const auto& a) { return a.first == sub->get_name(); });
        for (const CLI::Option* option : app.get_options()) {
            const std::string name = option->get_name();
            if (option->count() == 0 || name == "--help" || name == "--version") continue;
            if (applied != kApplied.end() && std::find(applied->second.begin(), applied->second.end(), name) != applied->second.end()) continue;
            const bool own = sub->get_option_no_throw(name) != nullptr;
            throw std::invalid_argument(fmt::format("{} is an option of a run, given before `{}`, which does not apply it: {}", name, sub->get_name(),
                                                    own ? fmt::format("give it after `{}`", sub->get_name()) : "leave it out"));
        }
    }
    options::requireRunOptionsCombine(app);
}

}  // namespace llama::cli
