// The compute dtype follows the weights (BF16 weights: the walkthrough's BF16 roundings; any
// other: F32), --compute-dtype overrides it as a recorded what-if, and the debug log says which.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_run.h"
#include "session/model_source.h"
#include "model/llama_transformer.h"

using namespace llama;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

Tensor dtypeLogits(const Model& model, const WhatIf& whatIf, const std::vector<int32_t>& tokens, InferenceContext* keep = nullptr) {
    LlamaTransformer transformer(model, whatIf);
    InferenceContext local(model.args);
    InferenceContext& ctx = keep ? *keep : local;
    return transformer.Forward(ctx, Tensor::fromInt32(tokens), 0);
}

float dtypeMaxDifference(const Tensor& a, const Tensor& b) {
    float d = 0;
    for (int64_t i = 0; i < a.numel(); ++i) d = std::max(d, std::abs(a.floatAt(i) - b.floatAt(i)));
    return d;
}

const std::string kLlama2c = std::string(TEST_FIXTURES_DIR) + "/llama2c/legacy.bin";

}  // namespace

TEST_CASE("the compute dtype follows the weights, and --compute-dtype overrides it", "[compute-dtype]") {
    static const Model bundled = loadModel(ASSETS_DIR "/model");
    const std::vector<int32_t> tokens = bundled.tokenizer->encode("In the beginning God created");
    CHECK(computeDTypeOf(bundled, {}) == DType::BF16);
    // Asking for the model's own dtype changes nothing, bit for bit.
    CHECK(dtypeMaxDifference(dtypeLogits(bundled, {}, tokens), dtypeLogits(bundled, {.computeDType = DType::BF16}, tokens)) == 0);
    // F32 activations: the KV cache holds F32 and the logits move (a little).
    InferenceContext ctx(bundled.args);
    const Tensor f32 = dtypeLogits(bundled, {.computeDType = DType::F32}, tokens, &ctx);
    CHECK(ctx.CacheK[0].dtype() == DType::F32);
    const float moved = dtypeMaxDifference(f32, dtypeLogits(bundled, {}, tokens));
    CHECK(moved > 0);
    CHECK(moved < 0.5f);

    const Model llama2c = loadModel(kLlama2c);
    CHECK(computeDTypeOf(llama2c, {}) == DType::F32);
    CHECK(computeDTypeOf(llama2c, {.computeDType = DType::BF16}) == DType::BF16);

    CHECK(WhatIf{.computeDType = DType::F32}.describe() == "--compute-dtype f32");
    CHECK(WhatIf{.computeDType = DType::F32}.any());
    CHECK(parseComputeDType("BF16") == DType::BF16);
    CHECK_THROWS_WITH(parseComputeDType("f16"), Contains("compute dtype 'f16': expected bf16 or f32"));
}

TEST_CASE("CLI --compute-dtype: recorded as a what-if, and the log's softmax line says what happened", "[compute-dtype][cli]") {
    const fs::path log = fs::temp_directory_path() / ("llama_compute_dtype_" + std::to_string(::getpid()) + ".log");
    auto readLog = [&] {
        std::ifstream in(log);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    };
    CliRun f32 = runWalkthrough("-q -n 2 -p Hi --compute-dtype f32 --debug-log " + log.string());
    REQUIRE(f32.exitCode == 0);
    CHECK_THAT(f32.output, Contains("What-if experiment, not the model's own computation: --compute-dtype f32"));
    std::string text = readLog();
    CHECK_THAT(text, Contains("-> tensor scores (Float32 run: no conversions)"));
    CHECK(text.find("to BFloat16 tensor") == std::string::npos);

    // A llama2.c model computes in F32 without being asked; --compute-dtype bf16 is the experiment.
    CliRun own = runWalkthrough("-q -n 2 -p Hi --model " + kLlama2c + " --debug-log " + log.string());
    REQUIRE(own.exitCode == 0);
    CHECK(own.output.find("What-if experiment") == std::string::npos);
    CHECK_THAT(readLog(), Contains("(Float32 run: no conversions)"));
    CliRun bf16 = runWalkthrough("-q -n 2 -p Hi --model " + kLlama2c + " --compute-dtype bf16 --debug-log " + log.string());
    REQUIRE(bf16.exitCode == 0);
    CHECK_THAT(bf16.output, Contains("--compute-dtype bf16"));
    CHECK_THAT(readLog(), Contains("Converting scores tensor shape("));
    CHECK_THAT(readLog(), Contains("to BFloat16 tensor -> tensor scores"));
    fs::remove(log);
}
