#pragma once
// The one generation loop (stage 3). A single run is a batch of one sequence; a batch runs many
// (continuous batching); speculative decoding proposes several tokens per pass. They differ only
// in how a pass is run, a DecodeStrategy; the loop keeps what they share: each produced token goes
// through its sequence's rules (stop token, max tokens, context full, streamed text), and a stop
// requested during a pass ends every sequence still going as StopReason::Stopped.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "generate/generated_sequence.h"
#include "generate/sampler.h"

namespace llama {

// What one pass made for one sequence, in order: one token, or a speculative round's accepted
// drafts and the token after them.
struct Produced {
    size_t sequence;
    std::vector<int32_t> tokens;
};

class DecodeStrategy {
public:
    virtual ~DecodeStrategy() = default;
    // One forward pass (or speculative round) for the sequences still running; what each made.
    // Empty when nothing is left to run.
    virtual std::vector<Produced> pass(std::vector<GeneratedSequence>& sequences) = 0;
    // The sequence has ended (its reason is set): a batch frees its cells.
    virtual void ended(size_t sequence) { (void)sequence; }
};

void generationLoop(std::vector<GeneratedSequence>& sequences, DecodeStrategy& strategy);

// Penalise, then choose, as every strategy that samples does it (Sampler::next). A dry run's
// logits have no data: token 0 stands in, which keeps the loop going.
Sampler::Choice chooseNext(Sampler& sampler, const Tensor& logits);

}  // namespace llama
