#include "penalty_options.h"

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace llama::cli {

namespace {
// A number in [min, max] (or (min, max] when minOpen). CLI11's Range lets NaN through.
CLI::Validator number(double min, double max, bool minOpen, const char* off) {
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            double v = 0;
            size_t used = 0;
            try {
                v = std::stod(text, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            const std::string range = fmt::format("{}{}, {}] ({} is off)", minOpen ? "(" : "[", min, max, off);
            if (used != text.size() || used == 0) return fmt::format("'{}' is not a number; expected one in {}", text, range);
            if (std::isnan(v) || v > max || v < min || (minOpen && v == min)) return fmt::format("{} is outside {}", text, range);
            return {};
        },
        "", "number");
}
}  // namespace

void addPenaltyOptions(CLI::App& app, SamplingSettings& s) {
    app.add_option("--repeat-penalty", s.repeatPenalty,
                   "Divide the positive logits of tokens seen in the window by this (multiply the negative ones); 1 = off (default)")
        ->check(number(0, 10, true, "1"));
    app.add_option("--repeat-last-n", s.repeatLastN, "The penalties' window: the last N tokens, prompt included (default 64; 0 = off, -1 = all)")
        ->check(CLI::Range(-1, 1 << 30));
    app.add_option("--frequency-penalty", s.frequencyPenalty, "Subtract this from a token's logit per occurrence in the window; 0 = off")
        ->check(number(-10, 10, false, "0"));
    app.add_option("--presence-penalty", s.presencePenalty, "Subtract this from the logit of every token present in the window; 0 = off")
        ->check(number(-10, 10, false, "0"));
}

}  // namespace llama::cli
