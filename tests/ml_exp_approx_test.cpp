// expApprox against the exact exponential (computed in double) over the float range where the
// result is a normal float, and at the edges: overflow, underflow, infinities, NaN.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "ml/exp_approx.h"

using llama::ml::detail::expApprox;

namespace {
// Distance in units in the last place of float at the exact value.
double ulps(float got, double exact) {
    const double ulp = std::ldexp(1.0, std::ilogb(float(exact)) - 23);
    return std::abs(double(got) - exact) / ulp;
}
}  // namespace

TEST_CASE("expApprox is within 2 ULP of exp wherever the result is a normal float", "[ml][exp]") {
    double worst = 0;
    float worstAt = 0;
    // Every 97th float bit pattern from -87.3 to 88.7 (about 2 million values).
    const float lo = -87.3f, hi = 88.7f;
    for (float x = lo; x < hi;) {
        const double u = ulps(expApprox(x), std::exp(double(x)));
        if (u > worst) worst = u, worstAt = x;
        for (int step = 0; step < 97; ++step) x = std::nextafter(x, hi);
    }
    INFO("worst " << worst << " ULP at x = " << worstAt);
    REQUIRE(worst <= 2.0);
    REQUIRE(expApprox(0.0f) == 1.0f);
    REQUIRE(expApprox(1.0f) == Approx(2.718281828).epsilon(1e-7));
}

TEST_CASE("expApprox overflows to inf, underflows to 0 and keeps NaN", "[ml][exp]") {
    const float inf = std::numeric_limits<float>::infinity();
    REQUIRE(expApprox(89.0f) == inf);
    REQUIRE(expApprox(1000.0f) == inf);
    REQUIRE(expApprox(inf) == inf);
    REQUIRE(expApprox(-inf) == 0.0f);
    REQUIRE(expApprox(-104.0f) == 0.0f);
    REQUIRE(expApprox(-1000.0f) == 0.0f);
    // A subnormal result (about 7.4e-43): within two of the smallest subnormal steps, 2^-149.
    REQUIRE(std::abs(double(expApprox(-97.0f)) - std::exp(-97.0)) <= 2 * std::ldexp(1.0, -149));
    REQUIRE(expApprox(-97.0f) > 0.0f);
    REQUIRE(expApprox(88.7f) == Approx(std::exp(double(88.7f))).epsilon(1e-6));
    REQUIRE(std::isnan(expApprox(std::numeric_limits<float>::quiet_NaN())));
}
