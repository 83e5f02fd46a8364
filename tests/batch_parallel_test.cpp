// Many sequences in one forward pass on the bundled model (batch/parallel_generation.h): with
// greedy sampling each sequence's tokens equal that prompt run alone, with and without a shared
// prefix copied by seq_cp, with queued prompts joining (continuous batching) and small ubatches;
// seq_add's re-rotation of cached keys equals computing the keys at the new positions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "batch/batch_decode.h"
#include "batch/parallel_generation.h"
#include "generate/generator.h"
#include "session/model_source.h"
#include "bundled_model.h"

using namespace llama;

namespace {

// Eight prompts of different lengths (2 to 17 tokens, BOS included).
const std::vector<std::string> kPrompts = {
    "And God said",
    "In the beginning God created the heaven and the earth.",
    "The LORD is my shepherd",
    "Blessed are the poor in spirit: for theirs is the kingdom of heaven.",
    "And it came to pass",
    "Then said Jesus unto them",
    "For God so loved the world, that he gave his only begotten Son,",
    "Moses",
};

std::vector<int32_t> tokensOf(const std::string& text) {
    return formatPrompt(PromptMode::Completion, "", text, ChatFormat::Llama3, false).encode(*bundledModel().tokenizer);
}

// The prompt alone, through the ordinary one-sequence loop.
std::vector<int32_t> alone(const std::vector<int32_t>& prompt, int maxTokens) {
    const LlamaTransformer transformer(bundledModel());
    InferenceContext ctx(bundledModel().args);
    Sampler sampler(SamplingSettings{});
    const Tokenizer& tok = *bundledModel().tokenizer;
    Prompt p({{tok.decode(prompt), false}}, true);  // re-encodes to the same tokens (checked below)
    GenerationResult r = Generator(transformer, tok).generate(ctx, p, maxTokens, sampler, {});
    REQUIRE(r.promptTokens == prompt);
    return r.generatedTokens;
}

ParallelResult together(const std::vector<std::vector<int32_t>>& prompts, int nParallel, int nUbatch, int maxTokens) {
    const LlamaTransformer transformer(bundledModel());
    InferenceContext ctx(bundledModel().args);
    ParallelSettings settings{.nParallel = nParallel, .maxTokens = maxTokens, .nUbatch = nUbatch};
    return ParallelGenerator(transformer, *bundledModel().tokenizer).generate(ctx, prompts, settings, {});
}
}  // namespace

TEST_CASE("batch: greedy text of each sequence in a batch equals the prompt run alone", "[batch][parallel]") {
    std::vector<std::vector<int32_t>> prompts;
    for (const auto& text : kPrompts) prompts.push_back(tokensOf(text));
    std::vector<std::vector<int32_t>> expected;
    for (const auto& p : prompts) expected.push_back(alone(p, 24));
    // All eight at once; three at a time with the rest queued (continuous batching); ubatches of 5;
    // one at a time (the batch of one: the same tokens as the walkthrough's own loop).
    for (auto [nParallel, nUbatch] : {std::pair{8, 512}, {3, 512}, {8, 5}, {1, 512}}) {
        const ParallelResult r = together(prompts, nParallel, nUbatch, 24);
        for (size_t i = 0; i < prompts.size(); ++i) {
            INFO("--parallel " << nParallel << " --ubatch " << nUbatch << ", prompt " << i + 1 << ": " << kPrompts[i]);
            // Every kernel sums in one canonical order (docs/speed.md), so a sequence's logits in a
            // batch are its logits alone, bit for bit: the same tokens, near-ties included.
            CHECK(r.sequences[i].generatedTokens == expected[i]);
            CHECK(r.sequences[i].stopReason == StopReason::MaxTokens);
        }
        CHECK(r.sharedPrefixTokens == 1);  // BOS, stored once
        if (nParallel == 3) CHECK(r.cellsReused > 0);  // later prompts took cells finished ones freed
    }
}

TEST_CASE("batch: a sequence's logits in a batch are its logits alone, bit for bit", "[batch][parallel]") {
    const LlamaTransformer transformer(bundledModel());
    const std::vector<std::vector<int32_t>> prompts = {tokensOf(kPrompts[1]), tokensOf(kPrompts[6]), tokensOf(kPrompts[3])};
    // Each prompt's prefill logits (every position), decoded alone.
    std::vector<Tensor> aloneLogits;
    for (const auto& p : prompts) {
        InferenceContext ctx(bundledModel().args);
        LlamaBatch b;
        for (size_t i = 0; i < p.size(); ++i) b.add(p[i], int(i), {0}, true);
        aloneLogits.push_back(llamaDecode(ctx, transformer, b, 512).logits);
    }
    // All three in one batch, their tokens interleaved (so each row's cells sit among the others'
    // and the mask hides those), in one ubatch and in ubatches of 5.
    for (int nUbatch : {512, 5}) {
        InferenceContext ctx(bundledModel().args);
        LlamaBatch b;
        for (size_t i = 0; i < 17; ++i)
            for (int s = 0; s < 3; ++s)
                if (i < prompts[size_t(s)].size()) b.add(prompts[size_t(s)][i], int(i), {s}, true);
        const DecodeOutputs out = llamaDecode(ctx, transformer, b, nUbatch);
        const int64_t vocab = out.logits.dim(1);
        std::vector<int64_t> row(3, 0);
        for (size_t t = 0; t < b.token.size(); ++t) {
            const int s = b.seqIds[t][0];
            const float* got = out.logits.data<float>() + out.outputOfToken[t] * vocab;
            const float* want = aloneLogits[size_t(s)].data<float>() + row[size_t(s)]++ * vocab;
            INFO("--ubatch " << nUbatch << ", prompt " << s << ", position " << row[size_t(s)] - 1);
            CHECK(std::memcmp(got, want, size_t(vocab) * sizeof(float)) == 0);
        }
    }
}

TEST_CASE("batch: a shared prefix decoded once and copied with seq_cp gives each sequence its own text", "[batch][parallel]") {
    const std::string system = "And the LORD spake unto Moses, saying, ";
    std::vector<std::vector<int32_t>> prompts;
    for (const auto& text : {"Speak unto the children of Israel", "Take the rod", "Go in unto Pharaoh", "Behold"})
        prompts.push_back(tokensOf(system + text));
    const int prefix = sharedPrefixLength(prompts);
    CHECK(prefix >= 9);
    const ParallelResult r = together(prompts, 4, 512, 16);
    CHECK(r.sharedPrefixTokens == prefix);
    // The prefix's cells are written once: total writes = prefix + each prompt's own tokens + decode tokens.
    int64_t own = 0;
    for (const auto& p : prompts) own += int64_t(p.size()) - prefix;
    CHECK(r.promptTokensDecoded == prefix + own);
    for (size_t i = 0; i < prompts.size(); ++i) {
        INFO("prompt " << i + 1);
        CHECK(r.sequences[i].generatedTokens == alone(prompts[i], 16));
    }
}

TEST_CASE("batch: seq_add re-rotates cached keys as if computed at the new positions", "[batch][parallel][rope]") {
    WhatIf f32;
    f32.computeDType = DType::F32;  // compare without BF16 rounding
    const LlamaTransformer transformer(bundledModel(), f32);
    const std::vector<int32_t> tokens = tokensOf("In the beginning God created");
    auto decodeAt = [&](InferenceContext& ctx, int from) {
        LlamaBatch b;
        for (size_t i = 0; i < tokens.size(); ++i) b.add(tokens[i], from + int(i), {0}, false);
        b.logits.back() = true;
        llamaDecode(ctx, transformer, b, 512);
    };
    InferenceContext shifted(bundledModel().args), direct(bundledModel().args);
    decodeAt(shifted, 40);
    shifted.Cells.seqAdd(0, -1, -1, -33);  // positions 40.. -> 7..
    REQUIRE(shifted.Cells.cell(0).pos == 7);
    shiftCachedKeys(shifted, transformer);
    CHECK_FALSE(shifted.Cells.hasShift());
    decodeAt(direct, 7);
    float worst = 0;
    for (size_t layer = 0; layer < shifted.CacheK.size(); ++layer)
        for (int64_t i = 0; i < int64_t(tokens.size()) * shifted.CacheK[layer].dim(1) * shifted.CacheK[layer].dim(2); ++i)
            worst = std::max(worst, std::abs(shifted.CacheK[layer].floatAt(i) - direct.CacheK[layer].floatAt(i)));
    // Rotating by 40 then by -33 equals rotating by 7 up to float rounding of the angles.
    CHECK(worst < 2e-3f);
    // And the shift is not a no-op: unshifted keys differ by far more.
    InferenceContext unshifted(bundledModel().args);
    decodeAt(unshifted, 40);
    float apart = 0;
    for (int64_t i = 0; i < 64; ++i) apart = std::max(apart, std::abs(unshifted.CacheK[0].floatAt(i) - direct.CacheK[0].floatAt(i)));
    CHECK(apart > 0.1f);
}

TEST_CASE("batch: a context shift keeps generating past each sequence's share of the cells", "[batch][parallel][shift]") {
    const LlamaTransformer transformer(bundledModel());
    ModelArgs small = bundledModel().args;
    small.max_seq_len = 64;  // two sequences of 32 positions each
    InferenceContext ctx(small);
    std::vector<std::vector<int32_t>> prompts = {tokensOf("And God said"), tokensOf("In the beginning")};
    ParallelSettings settings{.nParallel = 2, .maxTokens = 100, .contextShift = true, .nKeep = 4};
    const ParallelResult r = ParallelGenerator(transformer, *bundledModel().tokenizer).generate(ctx, prompts, settings, {});
    CHECK(r.positionsPerSequence == 1 + 63 / 2);
    for (const auto& s : r.sequences) {
        CHECK(s.generatedTokens.size() == 100);
        CHECK(s.contextShifts >= 3);
    }
    CHECK(r.maxCellsUsed <= 64);
    // Without the shift, each stops at its share.
    InferenceContext ctx2(small);
    settings.contextShift = false;
    settings.nKeep = 0;
    const ParallelResult r2 = ParallelGenerator(transformer, *bundledModel().tokenizer).generate(ctx2, prompts, settings, {});
    for (size_t i = 0; i < prompts.size(); ++i) {
        CHECK(r2.sequences[i].stopReason == StopReason::ContextFull);
        // Every position but the last filled (llama.cpp keeps one cell free), and the token sampled from the last one filled.
        CHECK(int(prompts[i].size() + r2.sequences[i].generatedTokens.size()) == r2.positionsPerSequence);
    }
}

TEST_CASE("batch: bad requests are refused with the setting and the prompt named", "[batch][parallel][hostile]") {
    const LlamaTransformer transformer(bundledModel());
    ModelArgs small = bundledModel().args;
    small.max_seq_len = 16;
    InferenceContext ctx(small);
    const ParallelGenerator gen(transformer, *bundledModel().tokenizer);
    std::vector<std::vector<int32_t>> many(20, tokensOf("And God said"));
    ParallelSettings settings{.nParallel = 20};
    CHECK_THROWS_WITH(gen.generate(ctx, many, settings, {}), Catch::Contains("20 sequences do not fit in --max-seq-len 16"));
    settings.nParallel = 0;
    CHECK_THROWS_WITH(gen.generate(ctx, many, settings, {}), Catch::Contains("--parallel 0"));
    settings.nParallel = 2;
    std::vector<std::vector<int32_t>> longOne = {tokensOf("And God said"), tokensOf(kPrompts[6])};
    CHECK_THROWS_WITH(gen.generate(ctx, longOne, settings, {}), Catch::Contains("prompt 2 has 17 tokens, but each of the 2 sequences has room for 8"));
}
