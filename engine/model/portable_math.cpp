#include "model/portable_math.h"

#include <cmath>
#include <stdexcept>

namespace llama::portable {

namespace {

// Rounds to the nearest integer, ties to even, for |v| < 2^51: adding and taking away 1.5 * 2^52
// leaves no fraction bits (and no library call whose rounding mode could differ).
double nearestInteger(double v) { return (v + 0x1.8p52) - 0x1.8p52; }

// ln 2 and pi / 2 split into parts whose products with a small integer n are exact (Cody and
// Waite): the high parts have their low bits zero. The values are fdlibm's.
constexpr double kLn2Hi = 0x1.62e42fee00000p-1, kLn2Lo = 0x1.a39ef35793c76p-33;
constexpr double kPiO2_1 = 0x1.921fb54400000p0, kPiO2_2 = 0x1.0b4611a600000p-34, kPiO2_3 = 0x1.3198a2e037073p-69;

}  // namespace

double log(double x) {
    if (!(x > 0) || !std::isfinite(x)) throw std::domain_error("portable::log of a value that is not positive and finite");
    // x = m * 2^e with m in [sqrt(1/2), sqrt(2)) (frexp and ldexp scale by powers of two: exact).
    int e = 0;
    double m = std::frexp(x, &e);
    if (m < 0x1.6a09e667f3bcdp-1) m = std::ldexp(m, 1), --e;
    // log m = 2 atanh(f) = 2 (f + f^3/3 + f^5/5 + ...), f = (m - 1)/(m + 1), |f| < 0.172:
    // terms to f^25 leave less than 1e-19.
    const double f = (m - 1) / (m + 1), f2 = f * f;
    double series = 1.0 / 25;
    for (int k = 23; k >= 1; k -= 2) series = series * f2 + 1.0 / k;
    return double(e) * kLn2Hi + (double(e) * kLn2Lo + 2 * f * series);
}

double exp(double x) {
    if (!(x > -700 && x < 700)) throw std::domain_error("portable::exp outside (-700, 700)");
    // x = n ln 2 + r, |r| <= ln 2 / 2; exp r by its Taylor series to r^14 (error < 1e-17).
    const double n = nearestInteger(x * 0x1.71547652b82fep0);
    const double r = (x - n * kLn2Hi) - n * kLn2Lo;
    double p = 1.0;
    for (int k = 14; k >= 1; --k) p = 1.0 + p * r / k;
    return std::ldexp(p, int(n));
}

double pow(double base, double exponent) { return exp(exponent * log(base)); }

void cosSin(double x, double& c, double& s) {
    if (!(std::fabs(x) < 0x1.921fb54442d18p20)) throw std::domain_error("portable::cosSin of an angle past 2^20 pi/2");
    // x = n pi/2 + r, |r| <= pi/4: each n * part is exact for |n| < 2^20, and each subtraction of
    // a nearly equal value is exact too.
    const double n = nearestInteger(x * 0x1.45f306dc9c883p-1);
    const double r = ((x - n * kPiO2_1) - n * kPiO2_2) - n * kPiO2_3;
    // Taylor series in r^2: sin to r^19, cos to r^20 (error < 1e-19 for |r| <= pi/4).
    const double r2 = r * r;
    double sinR = 1.0, cosR = 1.0;
    for (int k = 19; k >= 3; k -= 2) sinR = 1.0 - sinR * r2 / (double(k) * double(k - 1));
    for (int k = 20; k >= 2; k -= 2) cosR = 1.0 - cosR * r2 / (double(k) * double(k - 1));
    sinR *= r;
    switch (int(n) & 3) {
        case 0: c = cosR, s = sinR; break;
        case 1: c = -sinR, s = cosR; break;
        case 2: c = -cosR, s = -sinR; break;
        default: c = sinR, s = -cosR; break;
    }
}

}  // namespace llama::portable
