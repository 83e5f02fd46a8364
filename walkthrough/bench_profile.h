#pragma once
// `bench --profile`: the op profiler's totals (ml/op_profile.h) gathered per phase over bench's
// runs, printed as one table of ms per token by kind of op, prefill next to decode.
#include <cstdint>

#include "ml/op_profile.h"

namespace llama::cli {

// One phase (prefill or decode) summed over every run.
struct PhaseProfile {
    ml::OpProfile ops{};
    int64_t tokens = 0;
    int64_t passes = 0;  // forward passes: one per prefill, one per decoded token
    double wallSeconds = 0;

    // Adds the profiler's totals since its last reset, for `passes` passes over `tokens` tokens.
    void addSinceReset(int64_t tokens, int64_t passes, double wallSeconds);
};

void printOpProfile(const PhaseProfile& prefill, const PhaseProfile& decode);

}  // namespace llama::cli
