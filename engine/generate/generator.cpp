#include "generate/generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "ml/ops.h"
#include "tokenizer/utf8_stream.h"

namespace llama {

namespace {
// The dry run's stand-in for sampling: no logits exist, so a fixed token keeps the loop going.
constexpr int32_t kDryRunToken = 0;

}  // namespace

std::vector<int32_t> tokensBeforePad(const Tensor& row) {
    const int32_t* ids = row.data<int32_t>();
    return {ids, std::find(ids, ids + row.numel(), kPadId)};
}

GenerationResult Generator::generate(InferenceContext& ctx, const Prompt& formatted, int maxTokens, Sampler& sampler,
                                     const std::function<void(const std::string&)>& onText) const {
    using Clock = std::chrono::steady_clock;
    GenerationResult result;

    // Stage 1: text to token ids.
    result.promptTokens = formatted.encode(tokenizer_);
    const auto& prompt = result.promptTokens;
    if (prompt.empty()) throw std::invalid_argument("the prompt encodes to no tokens");
    Utf8StreamDecoder decoder;
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
        const auto stopIds = tokenizer_.stopIds();
        int startPos = 0;                  // the walkthrough's prevPos
        int curPos = int(prompt.size());  // this pass reads tokens [startPos, curPos)
        while (true) {
            if (int(result.generatedTokens.size()) >= maxTokens) {
                result.stopReason = "max tokens";
                break;
            }
            if (curPos > ctx.maxSeqLen) {
                result.stopReason = "context length";
                break;
            }
            // Stage 3: one pass of the loop. The first is the prefill of the whole prompt.
            Tensor inputTokens = ml::Slice(tokens, startPos, curPos);
            const auto here = ctx.at(-1, startPos);
            ctx.stage(marks::SequenceLoop{.phase = ctx.step == 0 ? "prefill" : "decoding", .curPos = curPos, .inputTokens = inputTokens});

            auto t0 = Clock::now();
            Tensor logits = transformer_.Forward(ctx, inputTokens, startPos);
            Tensor lastLogits = ml::Slice(logits, logits.dim(0) - 1, logits.dim(0));
            lastLogits = ml::Reshape(lastLogits, {logits.dim(1)});
            // The logits after the grammar and the repetition penalties, when there are any.
            std::optional<Tensor> penalized;
            // An observer is shown how many tokens a grammar allows: counted only then.
            sampler.countAllowed(ctx.observed());
            if (lastLogits.hasData() && sampler.adjustsLogits()) penalized = sampler.penalize(lastLogits);
            int32_t next = lastLogits.hasData() ? sampler.choose(penalized ? *penalized : lastLogits) : kDryRunToken;
            double secs = std::chrono::duration<double>(Clock::now() - t0).count();
            (ctx.step == 0 ? result.prefillSeconds : result.decodeSeconds) += secs;
            if (ctx.step > 0) result.decodeSteps++;

            Tensor nextToken = Tensor::fromInt32({next});
            // Observers show the top tokens before and after the penalties (kPenalizedLogits).
            ctx.stage(marks::Sample{.token = next, .piece = [&] { return tokenizer_.decodeToken(next); }, .logits = lastLogits, .next = nextToken,
                                    .method = [&] { return sampler.method(); },
                                    .allowedTokens = penalized ? sampler.allowedTokens() : lastLogits.numel(), .penalizedLogits = penalized},
                      skippedIf(!lastLogits.hasData()));

            if (curPos < ctx.maxSeqLen) tokens.mutableData<int32_t>()[curPos] = next;
            startPos = curPos++;
            // What-if --no-kv-cache: the whole sequence again from position 0, nothing read from the cache.
            if (ctx.whatIf.noKvCache) startPos = 0;
            ctx.step++;
            if (std::find(stopIds.begin(), stopIds.end(), next) != stopIds.end()) {
                result.stopReason = "end of turn token";
                break;
            }
            result.generatedTokens.push_back(next);
            sampler.accept(next);
            const int32_t previous = result.generatedTokens.size() > 1 ? result.generatedTokens.end()[-2] : prompt.back();
            std::string piece = decoder.feed(tokenizer_.decodeAfter(previous, next));
            result.text += piece;
            if (onText && !piece.empty()) onText(piece);
        }
    } catch (const GenerationStopped&) {
        result.stopReason = "stopped";
    }
    std::string rest = decoder.flush();
    result.text += rest;
    if (onText && !rest.empty()) onText(rest);
    return result;
}

}  // namespace llama
