#include "option_combinations.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace llama::options {

namespace {
using Names = std::vector<std::string_view>;

const Names kSpeculative = {"--draft-model", "--draft-layers"};
const std::vector<Combination> kRunCombinations = {
    {{"--top-k", "--top-p", "--min-p", "--mirostat", "--mirostat-tau", "--mirostat-eta"},
     kSpeculative,
     false,
     "speculative decoding checks drafts against the model's greedy choice, so no sampler runs"},
    {{"--draft-max"}, kSpeculative, true, "it is the number of tokens a draft model drafts"},
};

// The filters that choose among the tokens a sampler draws from: at temperature 0 (greedy, the
// default) no token is drawn, the most likely one is taken, and they change nothing.
const Names kSamplerFilters = {"--top-k", "--top-p", "--min-p"};

bool greedy(const CLI::App& app) {
    const CLI::Option* temperature = app.get_option_no_throw("--temperature");
    return !temperature || temperature->count() == 0 || std::stod(temperature->results().back()) == 0;
}
}  // namespace

bool given(const CLI::App& app, std::string_view name) {
    const CLI::Option* option = app.get_option_no_throw(std::string(name));
    return option && option->count() > 0;
}

void requireCombinations(const CLI::App& app, const std::vector<Combination>& rules) {
    for (const Combination& c : rules)
        for (std::string_view option : c.options) {
            if (!given(app, option)) continue;
            const auto other = std::find_if(c.others.begin(), c.others.end(), [&](std::string_view o) { return given(app, o); });
            if (c.needed && other == c.others.end())
                throw std::invalid_argument(fmt::format("{} applies only with {}: {}", option, fmt::join(c.others, " or "), c.why));
            if (!c.needed && other != c.others.end())
                throw std::invalid_argument(fmt::format("{} does not apply with {}: {}; leave one of them out", option, *other, c.why));
        }
}

void requireRunOptionsCombine(const CLI::App& app) {
    requireCombinations(app, kRunCombinations);
    if (greedy(app))
        for (std::string_view filter : kSamplerFilters)
            if (given(app, filter))
                throw std::invalid_argument(fmt::format("{} narrows the tokens a sampler draws from, and at --temperature 0 (greedy, the default) the most "
                                                        "likely token is taken without drawing: give a temperature (llama.cpp's default is 0.8) or leave {} out",
                                                        filter, filter));
}

}  // namespace llama::options
