#include "option_scope.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

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

// Options of a run that another one drops, and options that apply only beside one of others.
const Names kSpeculative = {"--draft-model", "--draft-layers"};
struct Combination {
    Names options;
    Names others;
    bool needed;  // true: the options apply only with one of the others; false: the others drop them
    std::string_view why;
};
const std::vector<Combination> kCombinations = {
    {{"--top-k", "--top-p", "--min-p", "--mirostat", "--mirostat-tau", "--mirostat-eta"},
     kSpeculative,
     false,
     "speculative decoding checks drafts against the model's greedy choice, so no sampler runs"},
    {{"--draft-max"}, kSpeculative, true, "it is the number of tokens a draft model drafts"},
};

bool given(const CLI::App& app, std::string_view name) {
    const CLI::Option* option = app.get_option_no_throw(std::string(name));
    return option && option->count() > 0;
}

// The filters that choose among the tokens a sampler draws from: at temperature 0 (greedy, the
// default) no token is drawn, the most likely one is taken, and they change nothing.
const Names kSamplerFilters = {"--top-k", "--top-p", "--min-p"};

bool greedy(const CLI::App& app) {
    const CLI::Option* temperature = app.get_option_no_throw("--temperature");
    return !temperature || temperature->count() == 0 || std::stod(temperature->results().back()) == 0;
}
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
    for (const Combination& c : kCombinations)
        for (std::string_view option : c.options) {
            if (!given(app, option)) continue;
            const auto other = std::find_if(c.others.begin(), c.others.end(), [&](std::string_view o) { return given(app, o); });
            if (c.needed && other == c.others.end())
                throw std::invalid_argument(fmt::format("{} applies only with {}: {}", option, fmt::join(c.others, " or "), c.why));
            if (!c.needed && other != c.others.end())
                throw std::invalid_argument(fmt::format("{} does not apply with {}: {}; leave one of them out", option, *other, c.why));
        }
    if (greedy(app))
        for (std::string_view filter : kSamplerFilters)
            if (given(app, filter))
                throw std::invalid_argument(fmt::format("{} narrows the tokens a sampler draws from, and at --temperature 0 (greedy, the default) the most "
                                                        "likely token is taken without drawing: give a temperature (llama.cpp's default is 0.8) or leave {} out",
                                                        filter, filter));
}

}  // namespace llama::cli
