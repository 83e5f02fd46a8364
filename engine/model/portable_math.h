#pragma once
// log, exp, pow, cos and sin computed from IEEE 754's correctly rounded operations alone (+, -, *,
// /), in double, so they give the same bits on every machine. Hand-written because the C
// library's are not the same everywhere: glibc's (natively) and musl's (the WebAssembly build)
// rounded some of RoPE's table differently, and that table feeds every layer. Accurate to a few
// units in the last place of a double, so rounding a result to float almost always gives the
// correctly rounded float, as the C library's float functions nearly always do too.
namespace llama::portable {

double log(double x);                      // x > 0, finite
double exp(double x);                      // |x| < 700
double pow(double base, double exponent);  // base > 0
void cosSin(double x, double& c, double& s);  // |x| < 2^20 * pi / 2, about 1.6 million

}  // namespace llama::portable
