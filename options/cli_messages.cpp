#include "cli_messages.h"

#include <fmt/format.h>

#include <cctype>

namespace llama::options {

namespace {
// What follows `marker` in CLI11's text (the names it was given), or "" when it is not there.
std::string after(const std::string& text, const std::string& marker) {
    const size_t at = text.find(marker);
    return at == std::string::npos ? "" : text.substr(at + marker.size());
}
// CLI11's "NAME: ..." for an option's errors: the option's name.
std::string optionOf(const std::string& text) { return text.substr(0, text.find(':')); }
}  // namespace

std::string inOurWords(const CLI::ParseError& e) {
    const std::string text = e.what();
    if (dynamic_cast<const CLI::CallForHelp*>(&e) || dynamic_cast<const CLI::CallForAllHelp*>(&e))
        return "--help lists the options in a terminal (llama-walkthrough --help); it does not run here";
    if (dynamic_cast<const CLI::CallForVersion*>(&e)) return "--version prints the version in a terminal; it does not run here";
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
        // CLI11 lists them last first: the first the user typed is its last word.
        const std::string extras = after(text, ": ");
        const std::string first = extras.substr(extras.rfind(' ') + 1);
        if (first.size() > 1 && first[0] == '-' && !std::isdigit(uint8_t(first[1]))) return fmt::format("unknown option '{}'", first);
        return fmt::format("unexpected argument '{}': every value follows its option (-p TEXT, -n 10), one value each", first);
    }
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
        if (text.find("missing") != std::string::npos) return fmt::format("{}: expected a value after it", optionOf(text));
        if (text.find("At Most") != std::string::npos) return fmt::format("{} is given more than once: give it once", optionOf(text));
    }
    if (dynamic_cast<const CLI::ConversionError*>(&e)) {
        const std::string given = after(text, "Could not convert: ");
        const size_t equals = given.find(" = ");
        if (equals != std::string::npos)
            return fmt::format("{} takes no value, got '{}'", given.substr(0, equals), given.substr(equals + 3));
    }
    if (dynamic_cast<const CLI::ExcludesError*>(&e)) {
        const size_t excludes = text.find(" excludes ");
        if (excludes != std::string::npos)
            return fmt::format("{} and {} cannot be used together: choose one", text.substr(0, excludes), text.substr(excludes + 10));
    }
    return text;
}

}  // namespace llama::options
