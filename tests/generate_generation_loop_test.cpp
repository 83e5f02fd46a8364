// The one generation loop (generate/generation_loop.h): a sequence's rules (stop token, max
// tokens, context full, streamed UTF-8) in one place, so a single run, a batch of one and a
// speculative run stop at the same token, for the same reason, with the same text.
#include <catch2/catch.hpp>

#include <optional>

#include "batch/parallel_generation.h"
#include "batch/speculative_generation.h"
#include "generate/generation_loop.h"
#include "generate/generator.h"
#include "session/model_source.h"
#include "bundled_model.h"

using namespace llama;

namespace {

const Tokenizer& tokenizer() { return *bundledModel().tokenizer; }

// A token whose bytes begin a 4-byte UTF-8 character and end there: its text waits for more.
int32_t leadByteToken() {
    for (int32_t id = 0; id < tokenizer().vocabSize(); ++id)
        if (tokenizer().decodeToken(id) == "\xF0") return id;
    FAIL("the bundled vocabulary has no token of the single byte F0");
    return -1;
}

ModelArgs withCells(int cells) {
    ModelArgs args = bundledModel().args;
    args.max_seq_len = cells;
    return args;
}

struct Outcome {
    std::vector<int32_t> tokens;
    std::string text;
    StopReason reason;
};

// The prompt run each way on a context of `cells` positions, greedy.
Outcome single(const std::vector<int32_t>& prompt, int cells, int maxTokens) {
    const ModelArgs args = withCells(cells);
    const LlamaTransformer transformer(bundledModel());
    InferenceContext ctx(args);
    Sampler sampler(SamplingSettings{});
    Prompt p({{tokenizer().decode(prompt), false}}, true);
    const GenerationResult r = Generator(transformer, tokenizer()).generate(ctx, p, maxTokens, sampler, {});
    REQUIRE(r.promptTokens == prompt);
    return {r.generatedTokens, r.text, r.stopReason};
}

Outcome batchOfOne(const std::vector<int32_t>& prompt, int cells, int maxTokens) {
    const ModelArgs args = withCells(cells);
    const LlamaTransformer transformer(bundledModel());
    InferenceContext ctx(args);
    const ParallelResult r =
        ParallelGenerator(transformer, tokenizer()).generate(ctx, {prompt}, ParallelSettings{.nParallel = 1, .maxTokens = maxTokens}, {});
    REQUIRE(r.positionsPerSequence == cells);
    const SequenceResult& s = r.sequences[0];
    return {s.generatedTokens, s.text, s.stopReason};
}

Outcome speculative(const std::vector<int32_t>& prompt, int cells, int maxTokens) {
    const ModelArgs args = withCells(cells);
    const LlamaTransformer transformer(bundledModel());
    const LlamaTransformer draft = firstLayers(transformer, 2);
    InferenceContext ctx(args), draftCtx(args);
    const GenerationResult r =
        SpeculativeGenerator(transformer, draft, tokenizer(), 4, kDefaultUbatch).generate(ctx, draftCtx, prompt, maxTokens, {});
    return {r.generatedTokens, r.text, r.stopReason};
}
}  // namespace

TEST_CASE("generation loop: a stop token ends a sequence and is not part of it", "[generate][loop]") {
    GeneratedSequence seq(tokenizer(), {1, 2, 3}, {.maxTokens = 10});
    REQUIRE(seq.take(tokenizer().encode(" the", false).at(0)));
    const int32_t stop = tokenizer().stopIds().at(0);
    CHECK_FALSE(seq.take(stop));
    CHECK(seq.stopReason() == StopReason::EndOfTurn);
    CHECK(seq.generated().size() == 1);
    CHECK(seq.text() == " the");
    CHECK_FALSE(seq.take(42));  // an ended sequence takes nothing more
    CHECK(seq.generated().size() == 1);
}

TEST_CASE("generation loop: max tokens and a full context end a sequence with the token that reached them", "[generate][loop]") {
    const int32_t a = tokenizer().encode(" a", false).at(0);
    GeneratedSequence limited(tokenizer(), {1}, {.maxTokens = 2});
    CHECK(limited.take(a));
    CHECK_FALSE(limited.take(a));
    CHECK(limited.stopReason() == StopReason::MaxTokens);
    CHECK(limited.generated().size() == 2);

    // Five cells hold the 3-token prompt and two generated tokens; the second fills them.
    GeneratedSequence full(tokenizer(), {1, 2, 3}, {.maxTokens = 64, .cells = 5});
    CHECK(full.take(a));
    CHECK_FALSE(full.take(a));
    CHECK(full.stopReason() == StopReason::ContextFull);
    CHECK(full.size() == 5);

    // No tokens wanted: the sequence has ended before any pass.
    CHECK(GeneratedSequence(tokenizer(), {1}, {.maxTokens = 0}).stopReason() == StopReason::MaxTokens);
}

TEST_CASE("generation loop: text streams whole characters, and an ending flushes a partial one as U+FFFD", "[generate][loop]") {
    std::string streamed;
    GeneratedSequence seq(tokenizer(), {1}, {.maxTokens = 10}, [&](const std::string& piece) { streamed += piece; });
    REQUIRE(seq.take(tokenizer().encode(" the", false).at(0)));
    REQUIRE(seq.take(leadByteToken()));
    CHECK(streamed == " the");  // the lead byte waits for the rest of its character
    seq.end(StopReason::Stopped);
    CHECK(seq.stopReason() == StopReason::Stopped);
    CHECK(streamed == " the\xEF\xBF\xBD");
    CHECK(seq.text() == streamed);
    seq.end(StopReason::MaxTokens);  // the first reason stays
    CHECK(seq.stopReason() == StopReason::Stopped);
}

TEST_CASE("generation loop: a stop requested during a pass ends every running sequence, each strategy told once", "[generate][loop]") {
    struct StopsOnSecondPass : DecodeStrategy {
        int passes = 0;
        std::vector<size_t> endedSequences;
        std::vector<Produced> pass(std::vector<GeneratedSequence>&) override {
            if (++passes == 2) throw GenerationStopped{};
            return {{0, {tokenizer().encode(" a", false).at(0)}}};
        }
        void ended(size_t sequence) override { endedSequences.push_back(sequence); }
    } strategy;
    std::vector<GeneratedSequence> sequences;
    sequences.emplace_back(tokenizer(), std::vector<int32_t>{1}, SequenceLimits{.maxTokens = 10});
    sequences.emplace_back(tokenizer(), std::vector<int32_t>{1}, SequenceLimits{.maxTokens = 0});  // ended before any pass
    sequences.emplace_back(tokenizer(), std::vector<int32_t>{1}, SequenceLimits{.maxTokens = 10});  // waiting, never produced
    generationLoop(sequences, strategy);
    CHECK(sequences[0].stopReason() == StopReason::Stopped);
    CHECK(sequences[0].generated().size() == 1);
    CHECK(sequences[1].stopReason() == StopReason::MaxTokens);
    CHECK(sequences[2].stopReason() == StopReason::Stopped);
    CHECK(strategy.endedSequences == std::vector<size_t>{0, 2});
}

TEST_CASE("generation loop: a single run, a batch of one and speculation stop at the same token for the same reason",
          "[generate][loop][batch]") {
    const std::vector<int32_t> prompt =
        formatPrompt(PromptMode::Completion, "", "In the beginning God created", ChatFormat::Llama3, false).encode(tokenizer());
    for (auto [cells, maxTokens, reason] : {std::tuple{int(prompt.size()) + 5, 64, StopReason::ContextFull},
                                            std::tuple{int(prompt.size()) + 1, 64, StopReason::ContextFull},
                                            std::tuple{64, 6, StopReason::MaxTokens}}) {
        INFO(cells << " cells, " << prompt.size() << "-token prompt, -n " << maxTokens);
        const Outcome one = single(prompt, cells, maxTokens);
        CHECK(one.reason == reason);
        CHECK(int(one.tokens.size()) == std::min(maxTokens, cells - int(prompt.size())));
        for (const Outcome& other : {batchOfOne(prompt, cells, maxTokens), speculative(prompt, cells, maxTokens)}) {
            CHECK(other.tokens == one.tokens);
            CHECK(other.text == one.text);
            CHECK(other.reason == one.reason);
        }
    }
}
