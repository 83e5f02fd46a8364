// Numbers typed on a command line or in a viewer script: whole text, no wrap-around, no NaN, and
// a refusal that says what was expected in the option's words.
#include <catch2/catch.hpp>

#include <limits>

#include "options/checked_number.h"

using namespace llama::options;
using Catch::Contains;

TEST_CASE("checked numbers: integers in range, whole text only, no wrap-around", "[options][hostile]") {
    const IntegerRange layer{1, 8, "a layer from 1 to 8"};
    CHECK(parseInteger("3", layer) == 3);
    for (const char* bad : {"0", "9", "-1", "", " 3", "3 ", "3x", "+3", "0x3", "4294967297", "99999999999999999999999", "3.0", "nan"})
        CHECK_THROWS_WITH(parseInteger(bad, layer), Contains("expected a layer from 1 to 8, got '"));
    CHECK(parseInteger("-9223372036854775808", {INT64_MIN, INT64_MAX, "any"}) == INT64_MIN);
    CHECK_THROWS(parseInteger("9223372036854775808", {INT64_MIN, INT64_MAX, "any"}));
}

TEST_CASE("checked numbers: an unsigned seed refuses a sign and overflow", "[options][hostile]") {
    CHECK(parseUnsigned("18446744073709551615", "a seed") == std::numeric_limits<uint64_t>::max());
    for (const char* bad : {"-1", "18446744073709551616", "1e3", ""}) CHECK_THROWS_WITH(parseUnsigned(bad, "a seed"), Contains("expected a seed"));
}

TEST_CASE("checked numbers: reals refuse NaN, infinities and an open bound", "[options][hostile]") {
    const RealRange p{0, 1, true, "a probability above 0 and at most 1"};
    CHECK(parseReal("0.5", p) == 0.5);
    CHECK(parseReal("1", p) == 1);
    CHECK(parseReal("1e-3", p) == 1e-3);
    for (const char* bad : {"0", "nan", "NaN", "inf", "-inf", "1.5", "1e999", "0.5x", ""})
        CHECK_THROWS_WITH(parseReal(bad, p), Contains("expected a probability above 0 and at most 1"));
}

TEST_CASE("checked numbers: a float option refuses what a float cannot hold, naming the text typed", "[options][hostile]") {
    const RealRange tau{0, 100, true, "a surprise in bits above 0 and at most 100"};
    const RealRange fraction{0, 1, false, "a fraction from 0 (off) to 1"};
    CHECK(parseFloat("5", tau) == 5.0f);
    CHECK(parseFloat("1e-30", tau) == 1e-30f);
    CHECK(parseFloat("0", fraction) == 0.0f);
    for (const char* tiny : {"1e-320", "1e-46", "1e-300"}) {
        INFO(tiny);
        CHECK_THROWS_WITH(parseFloat(tiny, fraction), std::string("expected a fraction from 0 (off) to 1, got '") + tiny +
                                                          "' (too close to 0 for a 32-bit float, which would hold 0)");
    }
    CHECK_THROWS_WITH(parseFloat("1e-320", tau), "expected a surprise in bits above 0 and at most 100, got '1e-320' (too close to 0 for a 32-bit "
                                                 "float, which would hold 0)");
    CHECK_THROWS_WITH(parseFloat("1e39", {0, 1e300, false, "a number"}), "expected a number, got '1e39' (too large for a 32-bit float)");
    CHECK_THROWS_WITH(parseReal("1e-400", tau), "expected a surprise in bits above 0 and at most 100, got '1e-400'");  // a double's underflow
}

TEST_CASE("checked numbers: a long junk value is cut in the message", "[options][hostile]") {
    const std::string junk(500, '9');
    try {
        parseInteger(junk, {0, 10, "a small number"});
        FAIL("accepted");
    } catch (const std::invalid_argument& e) {
        CHECK(std::string(e.what()).size() < 120);
    }
}

TEST_CASE("checked numbers: LAYER:HEAD is two 1-based numbers", "[options][hostile]") {
    CHECK(parseLayerHead("2:5") == std::pair{1, 4});
    for (const char* bad : {"2", "2:", "0:1", "1:0", "a:b", "2:5x", "0:0", "foo", "-1:2", "1:1x", "4294967297:1", ":3", "1:2:3"})
        CHECK_THROWS_WITH(parseLayerHead(bad), Contains("expected LAYER:HEAD"));
}
