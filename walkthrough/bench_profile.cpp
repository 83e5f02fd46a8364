#include "bench_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace llama::cli {

namespace {

int64_t summedNs(const PhaseProfile& p) {
    return std::accumulate(p.ops.begin(), p.ops.end(), int64_t(0), [](int64_t s, const ml::OpTotals& t) { return s + t.nanoseconds; });
}

double msPerToken(const PhaseProfile& p, int64_t ns) { return p.tokens ? ns / 1e6 / double(p.tokens) : 0; }

// ms/token, share of the phase's summed op time, calls per forward pass.
std::string cells(const PhaseProfile& p, const ml::OpTotals& t) {
    int64_t sum = summedNs(p);
    return fmt::format("{:>16.3f} {:>7.1f}% {:>11.1f}", msPerToken(p, t.nanoseconds), sum ? 100.0 * t.nanoseconds / sum : 0.0,
                       p.passes ? double(t.calls) / p.passes : 0.0);
}

}  // namespace

void PhaseProfile::addSinceReset(int64_t phaseTokens, int64_t phasePasses, double seconds) {
    const ml::OpProfile now = ml::opProfileSnapshot();
    for (size_t k = 0; k < ml::kOpKindCount; ++k) {
        ops[k].nanoseconds += now[k].nanoseconds;
        ops[k].calls += now[k].calls;
    }
    tokens += phaseTokens;
    passes += phasePasses;
    wallSeconds += seconds;
}

void printOpProfile(const PhaseProfile& prefill, const PhaseProfile& decode) {
    std::vector<size_t> kinds;
    for (size_t k = 0; k < ml::kOpKindCount; ++k)
        if (prefill.ops[k].calls || decode.ops[k].calls) kinds.push_back(k);
    // Decode first: it is what a reader of a generation waits on token after token.
    std::stable_sort(kinds.begin(), kinds.end(), [&](size_t a, size_t b) { return decode.ops[a].nanoseconds > decode.ops[b].nanoseconds; });

    fmt::print("\nwhere the time goes (--profile): time inside ml:: ops, per token ({} prefill tokens, {} decode tokens in all)\n",
               prefill.tokens, decode.tokens);
    fmt::print("{:<30} {:>16} {:>8} {:>11}   {:>16} {:>8} {:>11}\n", "op", "prefill ms/token", "share", "calls/pass", "decode ms/token",
               "share", "calls/pass");
    for (size_t k : kinds)
        fmt::print("{:<30} {}   {}\n", ml::opKindName(ml::OpKind(k)), cells(prefill, prefill.ops[k]), cells(decode, decode.ops[k]));
    fmt::print("{:<30} {:>16.3f} {:>8} {:>11}   {:>16.3f} {:>8}\n", "sum of op time", msPerToken(prefill, summedNs(prefill)), "100.0%", "",
               msPerToken(decode, summedNs(decode)), "100.0%");
    auto wallMs = [](const PhaseProfile& p) { return p.tokens ? p.wallSeconds * 1e3 / double(p.tokens) : 0; };
    fmt::print("{:<30} {:>16.3f} {:>8} {:>11}   {:>16.3f}\n", "measured wall time", wallMs(prefill), "", "", wallMs(decode));
    fmt::print("Q, K and V run as three concurrent tasks, so their op times overlap: the sum can exceed the wall time.\n"
               "RoPE counts applyRotaryEmbeddings with the conversions and complex ops inside it. Profiling reads the clock\n"
               "twice per op, so these runs are a little slower than unprofiled ones.\n");
}

}  // namespace llama::cli
