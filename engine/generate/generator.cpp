#include "generate/generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "generate/generation_loop.h"
#include "ml/ops.h"

namespace llama {

std::vector<int32_t> tokensBeforePad(const Tensor& row) {
    const int32_t* ids = row.data<int32_t>();
    return {ids, std::find(ids, ids + row.numel(), kPadId)};
}

namespace {

using Clock = std::chrono::steady_clock;

// A single run's pass, as the walkthrough runs it: the tokens row's slice [startPos, curPos)
// through Forward, the last position's logits sampled, the token written after the others.
class WalkthroughPass final : public DecodeStrategy {
public:
    WalkthroughPass(InferenceContext& ctx, const LlamaTransformer& transformer, const Tokenizer& tokenizer, Sampler& sampler, Tensor& tokens,
                    GenerationResult& result)
        : ctx_(ctx), transformer_(transformer), tokenizer_(tokenizer), sampler_(sampler), tokens_(tokens), result_(result),
          curPos_(int(result.promptTokens.size())) {}

    std::vector<Produced> pass(std::vector<GeneratedSequence>& sequences) override {
        if (!sequences[0].running()) return {};
        // Stage 3: one pass of the loop. The first is the prefill of the whole prompt.
        Tensor inputTokens = ml::Slice(tokens_, startPos_, curPos_);
        const auto here = ctx_.at(-1, Position(startPos_), soleSequenceCell(Position(startPos_)));
        ctx_.stage(marks::SequenceLoop{.phase = ctx_.step == 0 ? "prefill" : "decoding", .curPos = curPos_, .inputTokens = inputTokens});

        const auto t0 = Clock::now();
        Tensor logits = transformer_.Forward(ctx_, inputTokens, startPos_, LogitRows::Last);
        Tensor lastLogits = ml::Reshape(ml::Slice(logits, logits.dim(0) - 1, logits.dim(0)), {logits.dim(1)});
        // An observer is shown how many tokens a grammar allows: counted only then.
        sampler_.countAllowed(ctx_.observed());
        const Sampler::Choice next = chooseNext(sampler_, lastLogits);
        const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
        (ctx_.step == 0 ? result_.prefillSeconds : result_.decodeSeconds) += secs;
        if (ctx_.step > 0) result_.decodeSteps++;

        // Observers show the top tokens before and after the penalties (kPenalizedLogits).
        const int32_t id = next.token;
        ctx_.stage(marks::Sample{.token = id, .piece = [&] { return tokenizer_.decodeToken(id); }, .logits = lastLogits,
                                 .next = Tensor::fromInt32({id}), .method = [&] { return sampler_.method(); },
                                 .allowedTokens = next.penalized ? sampler_.allowedTokens() : lastLogits.numel(),
                                 .penalizedLogits = next.penalized},
                   skippedIf(!lastLogits.hasData()));

        // A running sequence holds fewer tokens than the context has positions: the row has room.
        tokens_.mutableData<int32_t>()[curPos_] = id;
        startPos_ = curPos_++;
        // What-if --no-kv-cache: the whole sequence again from position 0, nothing read from the cache.
        if (ctx_.whatIf.noKvCache) startPos_ = 0;
        ctx_.step++;
        sampler_.accept(id);
        return {{0, {id}}};
    }

private:
    InferenceContext& ctx_;
    const LlamaTransformer& transformer_;
    const Tokenizer& tokenizer_;
    Sampler& sampler_;
    Tensor& tokens_;
    GenerationResult& result_;
    int startPos_ = 0;  // the walkthrough's prevPos
    int curPos_;        // this pass reads tokens [startPos, curPos)
};

}  // namespace

GenerationResult Generator::generate(InferenceContext& ctx, const Prompt& formatted, int maxTokens, Sampler& sampler,
                                     const std::function<void(const std::string&)>& onText) const {
    GenerationResult result;
    // Stage 1: text to token ids.
    result.promptTokens = formatted.encode(tokenizer_);
    const auto& prompt = result.promptTokens;
    std::vector<GeneratedSequence> sequence;
    sequence.emplace_back(tokenizer_, prompt, SequenceLimits{.maxTokens = maxTokens, .cells = ctx.maxSeqLen}, onText);
    // A stop requested at any stage, the first ones included, ends the run with a result.
    try {
        ctx.stage(marks::Tokenize{.count = int64_t(prompt.size()), .ids = [&] { return fmt::format(" {}", fmt::join(prompt, " ")); },
                                  .pieces = [&] {
                                      std::string pieces;
                                      for (int32_t id : prompt) pieces += fmt::format(" \"{}\"", tokenizer_.pieceForDisplay(id));
                                      return pieces;
                                  }});
        if (int(prompt.size()) >= ctx.maxSeqLen)
            throw std::invalid_argument(fmt::format("the prompt has {} tokens, but the context length is {}: it must be shorter",
                                                    prompt.size(), ctx.maxSeqLen));

        // Stage 2: the tokens tensor. As in the walkthrough (and Meta's code), one Int32 row as long
        // as the context, filled with the pad id and the prompt at its start; each sampled token is
        // written after it, and every pass reads its input tokens as a slice of this row.
        Tensor tokens = ml::Full({ctx.maxSeqLen}, DType::I32, float(kPadId));
        std::copy(prompt.begin(), prompt.end(), tokens.mutableData<int32_t>());
        ctx.stage(marks::TokensTensor{.tokens = tokens, .count = int64_t(prompt.size())});

        for (int32_t id : prompt) sampler.accept(id);
        WalkthroughPass pass(ctx, transformer_, tokenizer_, sampler, tokens, result);
        generationLoop(sequence, pass);
    } catch (const GenerationStopped&) {
        sequence[0].end(StopReason::Stopped);
    }
    result.generatedTokens = sequence[0].generated();
    result.text = sequence[0].text();
    result.stopReason = sequence[0].stopReason();
    return result;
}

}  // namespace llama
