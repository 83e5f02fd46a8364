#include "checked_number.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <limits>

namespace llama::options {

namespace {
[[noreturn]] void refuse(std::string_view text, const std::string& expected, std::string_view why = {}) {
    // Long junk is cut so a message stays one readable line.
    const std::string shown = text.size() > 40 ? std::string(text.substr(0, 40)) + "..." : std::string(text);
    throw std::invalid_argument(fmt::format("expected {}, got '{}'{}", expected, shown, why));
}

// std::from_chars: whole-text, locale-free and reports overflow instead of wrapping (strtol and
// sscanf("%d") wrap or saturate, std::stoi accepts trailing junk).
template <class T>
bool readWhole(std::string_view text, T& value) {
    if (text.empty()) return false;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    return ec == std::errc() && ptr == end;
}
#ifdef __EMSCRIPTEN__
// The browser build's libc++ has no floating-point from_chars. Its C library has the "C" locale
// only, so strtod reads the same text; what from_chars refuses and strtod takes (leading space,
// a plus sign, hexadecimal) is refused first.
bool readWhole(std::string_view text, double& value) {
    if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) || text.front() == '+' ||
        text.find_first_of("xX") != std::string_view::npos)
        return false;
    const std::string copy(text);
    char* end = nullptr;
    errno = 0;
    value = std::strtod(copy.c_str(), &end);
    return errno != ERANGE && end == copy.c_str() + copy.size();
}
#endif
}  // namespace

int64_t parseInteger(std::string_view text, const IntegerRange& range) {
    int64_t value = 0;
    if (!readWhole(text, value) || value < range.min || value > range.max) refuse(text, range.expected);
    return value;
}

uint64_t parseUnsigned(std::string_view text, const std::string& expected) {
    uint64_t value = 0;
    if (!readWhole(text, value)) refuse(text, expected);
    return value;
}

double parseReal(std::string_view text, const RealRange& range) {
    double value = 0;
    if (!readWhole(text, value) || !std::isfinite(value) || value < range.min || value > range.max ||
        (range.minOpen && value == range.min))
        refuse(text, range.expected);
    return value;
}

float parseFloat(std::string_view text, const RealRange& range) {
    const double value = parseReal(text, range);
    const float kept = float(value);
    if (kept == 0 && value != 0) refuse(text, range.expected, " (too close to 0 for a 32-bit float, which would hold 0)");
    if (!std::isfinite(kept)) refuse(text, range.expected, " (too large for a 32-bit float)");
    return kept;
}

namespace {
// Two numbers from 1 joined by `separator` ("2:5", "3-6"), as int.
std::pair<int, int> parseOneBasedPair(std::string_view text, char separator, const std::string& expected) {
    const size_t at = text.find(separator);
    if (at == std::string_view::npos) refuse(text, expected);
    const IntegerRange oneBased{1, std::numeric_limits<int>::max(), expected};
    try {
        return {int(parseInteger(text.substr(0, at), oneBased)), int(parseInteger(text.substr(at + 1), oneBased))};
    } catch (const std::invalid_argument&) {
        refuse(text, expected);
    }
}
}  // namespace

std::pair<int, int> parseLayerHead(std::string_view text) {
    const auto [layer, head] = parseOneBasedPair(text, ':', "LAYER:HEAD, two numbers from 1 (e.g. 2:5)");
    return {layer - 1, head - 1};
}

std::pair<int, int> parseLayerRange(std::string_view text) {
    const std::string expected = "A-B, layers counted from 1 with A <= B (e.g. 3-6)";
    const auto range = parseOneBasedPair(text, '-', expected);
    if (range.second < range.first) refuse(text, expected);
    return range;
}

}  // namespace llama::options
