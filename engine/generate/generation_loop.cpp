#include "generate/generation_loop.h"

#include "stages/stage_event.h"

namespace llama {

void generationLoop(std::vector<GeneratedSequence>& sequences, DecodeStrategy& strategy) {
    try {
        for (std::vector<Produced> produced; !(produced = strategy.pass(sequences)).empty();)
            for (const Produced& p : produced) {
                GeneratedSequence& sequence = sequences[p.sequence];
                for (int32_t id : p.tokens)
                    if (!sequence.take(id)) {
                        strategy.ended(p.sequence);
                        break;
                    }
            }
    } catch (const GenerationStopped&) {
        for (size_t i = 0; i < sequences.size(); ++i)
            if (sequences[i].running()) {
                sequences[i].end(StopReason::Stopped);
                strategy.ended(i);
            }
    }
}

Sampler::Choice chooseNext(Sampler& sampler, const Tensor& logits) {
    if (!logits.hasData()) return {0, std::nullopt};
    return sampler.next(logits);
}

}  // namespace llama
