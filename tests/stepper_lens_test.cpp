// The stepper's `lens [K]` command: parsed strictly, printed from the blocks finished so far.
#include <catch2/catch.hpp>

#include "session/model_source.h"
#include "generate/generator.h"
#include "lens_view.h"
#include "stepper.h"

using namespace llama;
using namespace llama::cli;

TEST_CASE("stepper: lens [K] parses, and refuses what is not a K", "[step][lens]") {
    CHECK(parseStepCommand("lens").kind == StepCommand::Kind::Lens);
    CHECK(parseStepCommand("lens").index == 0);
    CHECK(parseStepCommand("lens 3").index == 3);
    for (const char* bad : {"lens 0", "lens x", "lens 101", "lens 1 2"}) {
        INFO(bad);
        CHECK(parseStepCommand(bad).kind == StepCommand::Kind::Invalid);
    }
}

TEST_CASE("stepper: the lens covers the finished blocks of the current step only", "[step][lens]") {
    const Model model = loadModel(std::string(ASSETS_DIR) + "/model");
    const LlamaTransformer transformer(model);
    const LogitLens lens(transformer);
    LensCollector collector(lens, *model.tokenizer);
    CHECK(collector.describe(0).find("no block of this step has finished yet") != std::string::npos);

    // Stop after layer 3's block output of the prefill: the lens has layers 1-3.
    struct StopAfter : StageObserver {
        void onStage(const StageEvent& e) override {
            if (e.stage == StageId::FfnResidual && e.layer == 2) throw GenerationStopped{};
        }
    } stop;
    InferenceContext ctx(model.args);
    ctx.addObserver(&collector);
    ctx.addObserver(&stop);
    Sampler sampler(SamplingSettings{});
    Generator(transformer, *model.tokenizer).generate(ctx, "<|begin_of_text|>In the beginning", 2, sampler, {});
    const std::string grid = collector.describe(0);
    INFO(grid);
    CHECK(grid.find(" layer 3 ") != std::string::npos);
    CHECK(grid.find(" layer 4 ") == std::string::npos);
    CHECK(grid.find("\" beginning\"") != std::string::npos);  // the input row names the tokens
    const std::string top = collector.describe(2);
    CHECK(top.find("the 2 most likely next tokens") != std::string::npos);
}
