#pragma once
// Numbers typed by a person (command-line options, viewer flags, viewer script arguments), read
// one checked way: the whole text must be the number, nothing wraps around or saturates, NaN and
// infinities are refused, and a refusal says what was expected in the option's own words
// ("a layer from 1 upwards"), never a bound of 309 digits.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace llama::options {

// What a number must be, for the message: min/max bound the value; `expected` names it
// ("a layer from 1 upwards", "a positive number").
struct IntegerRange {
    int64_t min;
    int64_t max;
    std::string expected;
};
struct RealRange {
    double min;
    double max;
    bool minOpen = false;  // (min, max] instead of [min, max]
    std::string expected;
};

// Throws std::invalid_argument("expected <expected>, got '<text>'").
int64_t parseInteger(std::string_view text, const IntegerRange& range);
uint64_t parseUnsigned(std::string_view text, const std::string& expected);  // 0 .. 2^64-1, no sign
double parseReal(std::string_view text, const RealRange& range);
// For a value kept in a float: a number a float cannot hold (1e-320 would be 0) is refused too.
float parseFloat(std::string_view text, const RealRange& range);

// "LAYER:HEAD", both 1-based (the model checks the upper bounds); returns them 0-based.
std::pair<int, int> parseLayerHead(std::string_view text);
// "A-B", layers from 1 with A <= B (the model checks B); returns them as typed, 1-based.
std::pair<int, int> parseLayerRange(std::string_view text);

}  // namespace llama::options
