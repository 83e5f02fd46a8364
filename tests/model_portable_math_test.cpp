// model/portable_math.h against the C library: the portable functions must be as accurate as
// the library's (log and exp within 2 units in the last place of a double), since RoPE's table takes
// them instead; and rounded to float they must give the float the library gives nearly always.
#include <catch2/catch.hpp>

#include <cmath>

#include "model/portable_math.h"

using namespace llama;

namespace {
// |a - b| in units of the last place of b.
double ulps(double a, double b) { return std::fabs(a - b) / (std::nextafter(std::fabs(b), INFINITY) - std::fabs(b)); }
}  // namespace

TEST_CASE("portable math: log, exp, pow, cos and sin as accurate as the C library's", "[model][rope][portable]") {
    double worst = 0;
    for (double x = 1e-6; x < 1e7; x *= 1.0137) worst = std::max(worst, ulps(portable::log(x), std::log(x)));
    for (double x = -600; x < 600; x += 0.3777) worst = std::max(worst, ulps(portable::exp(x), std::exp(x)));
    INFO("worst " << worst << " ULP over log and exp");
    CHECK(worst <= 2);
    // pow is exp(e * log(base)): the product's rounding, relative 2^-53 of up to 13 (log 500000),
    // moves the result by up to about 13 ULP, far below float's; RoPE's frequencies, rounded to
    // float, are the library's.
    double worstPow = 0;
    for (int i = 0; i < 64; ++i) {
        const double e = double(float(2 * i) / 128.0f);
        for (double theta : {10000.0, 500000.0}) {
            worstPow = std::max(worstPow, ulps(portable::pow(theta, e), std::pow(theta, e)));
            CHECK(float(portable::pow(theta, e)) == float(std::pow(theta, e)));
        }
    }
    INFO("worst " << worstPow << " ULP over pow");
    CHECK(worstPow <= 16);
    // Angles as RoPE makes them: position times frequency, up to 131072 positions. Near a zero of
    // cos or sin the relative error of any method grows; the absolute error is what RoPE feels.
    double worstAbs = 0;
    int floatDiffers = 0, angles = 0;
    for (float angle = 0; angle < 131072; angle = angle * 1.001f + 0.01f, ++angles) {
        double c, s;
        portable::cosSin(angle, c, s);
        worstAbs = std::max({worstAbs, std::fabs(c - std::cos(double(angle))), std::fabs(s - std::sin(double(angle)))});
        floatDiffers += float(c) != float(std::cos(double(angle))) || float(s) != float(std::sin(double(angle)));
    }
    INFO("worst absolute error " << worstAbs << ", float results differing at " << floatDiffers << " of " << angles << " angles");
    CHECK(worstAbs < 1e-15);
    CHECK(floatDiffers <= angles / 10000);
}

TEST_CASE("portable math: arguments outside the stated ranges are refused", "[model][rope][portable]") {
    double c, s;
    CHECK_THROWS(portable::log(0.0));
    CHECK_THROWS(portable::log(-1.0));
    CHECK_THROWS(portable::exp(800.0));
    CHECK_THROWS(portable::cosSin(1e9, c, s));
    CHECK_THROWS(portable::cosSin(NAN, c, s));
}
