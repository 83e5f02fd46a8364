#include <catch2/catch.hpp>
#include <cmath>

#include "generate/perplexity.h"
#include "model/inference_context.h"
#include "model/llama_transformer.h"
#include "model/synthetic.h"

using namespace llama;

namespace {
// -ln p(next) after the tokens `prefix`, from a pass over the prefix alone (its last row): another
// pass than the chunk's, so a token scored against the wrong row, or a BOS not put in, shows.
double nllAfter(const Model& model, const std::vector<int32_t>& prefix, int32_t next) {
    const LlamaTransformer transformer(model);
    InferenceContext ctx(model.args);
    const Tensor logits = transformer.Forward(ctx, Tensor::fromInt32(prefix), 0);
    const int64_t vocab = model.args.vocab_size, last = int64_t(prefix.size()) - 1;
    double z = 0;
    for (int64_t v = 0; v < vocab; ++v) z += std::exp(double(logits.floatAt(last * vocab + v)));
    return std::log(z) - double(logits.floatAt(last * vocab + next));
}
}  // namespace

TEST_CASE("perplexity scores the second half of each chunk, BOS first, as llama.cpp", "[generate][perplexity]") {
    const Model model = makeSyntheticModel("tiny", 5, false);
    std::vector<int32_t> ids;
    for (int i = 0; i < 21; ++i) ids.push_back((i * 37 + 11) % 700 + 5);  // 2 chunks of 8, 5 left over
    const int ctx = 8;
    const PerplexityResult r = computePerplexity(model, ids, ctx);
    REQUIRE(r.chunks == 2);
    REQUIRE(r.scoredPerChunk == 3);  // positions 4..6 predict tokens 5..7
    double sum = 0;
    int count = 0;
    for (int c = 0; c < 2; ++c) {
        std::vector<int32_t> chunk(ids.begin() + c * ctx, ids.begin() + (c + 1) * ctx);
        chunk[0] = model.tokenizer->bosId();
        for (int pos = ctx / 2; pos < ctx - 1; ++pos, ++count)
            sum += nllAfter(model, {chunk.begin(), chunk.begin() + pos + 1}, chunk[pos + 1]);
        CHECK(r.runningPpl[size_t(c)] == Approx(std::exp(sum / count)).epsilon(1e-3));
    }
    CHECK(r.ppl == Approx(std::exp(sum / count)).epsilon(1e-3));
    CHECK(r.pplError > 0);
    CHECK(computePerplexity(model, ids, ctx, 1).chunks == 1);
}

TEST_CASE("perplexity refuses a text shorter than one chunk, naming both lengths", "[generate][perplexity][errors]") {
    const Model model = makeSyntheticModel("tiny", 5, false);
    REQUIRE_THROWS_WITH(computePerplexity(model, {5, 6, 7}, 8), Catch::Contains("the text has 3 tokens, fewer than one chunk of 8"));
    REQUIRE_THROWS_WITH(computePerplexity(model, {5, 6, 7}, 2), Catch::Contains("at least 4 tokens, got 2"));
}
