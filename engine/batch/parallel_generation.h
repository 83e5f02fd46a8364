#pragma once
// Many sequences generated together, the way llama.cpp's parallel example and its server run
// them (continuous batching): up to nParallel sequences decode in one batch, each with its own
// sampler and stop condition; a sequence that finishes leaves (its cells are freed with seq_rm)
// and the next queued prompt joins in the same batch as the others' decode tokens. A prefix all
// prompts share (a system prompt) is decoded once as sequence 0 and copied to each sequence with
// seq_cp, so its cells are stored once. With contextShift, a sequence that reaches its share of
// the cells keeps its first nKeep positions, frees half of the rest (seq_rm) and moves the
// remainder back (seq_add), as llama.cpp's examples do; without it, the sequence stops there.
#include <functional>
#include <string>
#include <vector>

#include "generate/sampler.h"
#include "generate/stop_reason.h"
#include "model/llama_transformer.h"
#include "tokenizer/tokenizer.h"

namespace llama {

struct ParallelSettings {
    int nParallel = 4;      // sequences decoded together (llama.cpp's -np)
    int maxTokens = 64;     // generated tokens per sequence
    int nUbatch = kDefaultUbatch;  // tokens per forward pass (llama.cpp's -ub)
    bool contextShift = false;
    int nKeep = 0;          // positions a context shift keeps at a sequence's start (the shared prefix always)
    SamplingSettings sampling;  // each sequence's sampler is seeded with sampling.seed + its index
};

struct SequenceResult {
    std::vector<int32_t> promptTokens;  // the shared prefix included
    std::vector<int32_t> generatedTokens;
    std::string text;
    StopReason stopReason = StopReason::Running;
    double joinedAt = 0, finishedAt = 0;  // seconds since the run started
    int contextShifts = 0;
};

struct ParallelResult {
    std::vector<SequenceResult> sequences;  // in prompt order
    int sharedPrefixTokens = 0;             // stored once, in sequence 0's cells
    int positionsPerSequence = 0;           // each sequence's share of the cells
    double seconds = 0;
    int passes = 0;              // llama_decode calls
    int64_t promptTokensDecoded = 0, generatedTokensDecoded = 0;
    int maxCellsUsed = 0;
    int64_t cellsWritten = 0, cellsReused = 0;  // reused: written into a cell a finished sequence had freed
};

class ParallelGenerator {
public:
    ParallelGenerator(const LlamaTransformer& transformer, const Tokenizer& tokenizer) : transformer_(transformer), tokenizer_(tokenizer) {}

    // prompts: each sequence's whole token list (BOS and any system prompt included). Throws
    // std::invalid_argument naming the prompt (by its index) and the setting when a prompt does not
    // fit its share of ctx.maxSeqLen cells, or nParallel is out of range.
    // onText(index, piece) streams each sequence's complete UTF-8 text.
    ParallelResult generate(InferenceContext& ctx, const std::vector<std::vector<int32_t>>& prompts, const ParallelSettings& settings,
                            const std::function<void(int, const std::string&)>& onText) const;

private:
    const LlamaTransformer& transformer_;
    const Tokenizer& tokenizer_;
};

// The longest token prefix all prompts share, shortened so every prompt keeps one token of its own
// (its last token's logits start its generation).
int sharedPrefixLength(const std::vector<std::vector<int32_t>>& prompts);

}  // namespace llama
