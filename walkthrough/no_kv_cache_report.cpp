#include "no_kv_cache_report.h"

#include <fmt/format.h>

namespace llama::cli {

void reportKvCacheExperiment(Session& session, const GenerationResult& without, const StepLogits& withoutLogits) {
    StepLogits withLogits;
    session.clearObservers();
    session.addObserver(&withLogits);
    GenerationSettings& s = session.settings();
    s.whatIf.noKvCache = false;
    const GenerationResult with = session.run();
    s.whatIf.noKvCache = true;
    auto perToken = [](const GenerationResult& r) { return r.decodeSteps ? 1000 * r.decodeSeconds / r.decodeSteps : 0.0; };
    fmt::print("What-if --no-kv-cache: {} decode steps took {:.3f} s ({:.2f} ms per token) recomputing the whole sequence; "
               "with the KV cache they take {:.3f} s ({:.2f} ms per token).\n",
               without.decodeSteps, without.decodeSeconds, perToken(without), with.decodeSeconds, perToken(with));
    fmt::print("{}\n", kvCacheAgreement(withoutLogits.logits(), withLogits.logits(), without.generatedTokens == with.generatedTokens));
}

}  // namespace llama::cli
