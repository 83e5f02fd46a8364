#pragma once
// What --no-kv-cache reports (the switches themselves: options/run_options.h): the run's timing
// next to the same run with the cache, and whether their logits agree (session/kv_cache_check.h,
// which the viewer shows too).
#include "session/kv_cache_check.h"
#include "session/session.h"

namespace llama::cli {

// After a --no-kv-cache run: runs the same generation with the cache (observed only by a
// StepLogits) and prints both decode timings and whether the logits are equal.
void reportKvCacheExperiment(Session& session, const GenerationResult& without, const StepLogits& withoutLogits);

}  // namespace llama::cli
