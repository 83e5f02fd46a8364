// A stage mark's text fields (stage_marks.h, LazyText) are made only when someone observes the
// run: an unobserved run pays nothing for the log's words.
#include <catch2/catch.hpp>

#include "batch/parallel_generation.h"
#include "generate/generator.h"
#include "model/synthetic.h"
#include "stages/stage_marks.h"

using namespace llama;

namespace {
class Listener : public StageObserver {
public:
    int marks = 0;
    void onStage(const StageEvent&) override { ++marks; }
};

// A single run and a batch of two sequences with a context shift: the marks with text fields
// (the prompt's ids and pieces, each sample's piece and method, the ubatch table, the KV cells'
// map and the shift's cells and deltas).
void runBoth(const Model& model, StageObserver* observer) {
    LlamaTransformer transformer(model);
    {
        InferenceContext ctx(model.args);
        if (observer) ctx.addObserver(observer);
        Sampler sampler(SamplingSettings{});
        Generator(transformer, *model.tokenizer).generate(ctx, "Hi there", 4, sampler, {});
    }
    ModelArgs small = model.args;
    small.max_seq_len = 24;  // 12 cells a sequence: 16 tokens each make the context shift
    InferenceContext ctx(small);
    if (observer) ctx.addObserver(observer);
    const std::vector<std::vector<int32_t>> prompts{model.tokenizer->encode("Hi there", true), model.tokenizer->encode("Ho", true)};
    ParallelGenerator(transformer, *model.tokenizer).generate(ctx, prompts, {.nParallel = 2, .maxTokens = 16, .contextShift = true}, {});
}
}  // namespace

TEST_CASE("stage marks: an unobserved run makes no mark text, an observed one makes them", "[stages][model]") {
    const Model model = makeSyntheticModel("tiny", 3, false);
    const uint64_t before = marks::LazyText::madeSoFar();
    runBoth(model, nullptr);
    CHECK(marks::LazyText::madeSoFar() == before);

    Listener listener;
    runBoth(model, &listener);
    REQUIRE(listener.marks > 0);
    CHECK(marks::LazyText::madeSoFar() > before);
}
