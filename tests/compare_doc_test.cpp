// compare-doc: a document's quoted [DEBUG] lines against a real debug log. Our own chapter 10
// must match a fresh run; hand-made documents with deliberate errors must fail, naming them.
#include <catch2/catch.hpp>

#include "cli_run.h"
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include "generate/generator.h"
#include "model/synthetic.h"
#include "doccheck/doc_compare.h"

namespace fs = std::filesystem;
using namespace llama;

namespace {
const std::string kFixtures = TEST_FIXTURES_DIR "/compare_doc/";

std::vector<DebugLine> linesOf(const std::string& text) {
    std::istringstream in(text);
    return readDebugLines(in);
}
}  // namespace

// The command chapter 10 says its excerpt came from; keep the two in step.
TEST_CASE("compare-doc: chapter 10's excerpt matches a fresh run of the bundled model", "[compare-doc]") {
    fs::path log = fs::temp_directory_path() / "llama_compare_doc_chapter10.log";
    CliRun gen = runWalkthrough("--model " ASSETS_DIR "/model --prompt \"The cat sat on the mat\" -n 1 -q --debug-log " + log.string());
    INFO(gen.output);
    REQUIRE(gen.exitCode == 0);
    CliRun cmp = runWalkthrough("compare-doc " CHAPTERS_DIR "/10-forward-pass.md --log " + log.string());
    INFO(cmp.output);
    CHECK(cmp.exitCode == 0);
    CHECK(cmp.output.find(" 0 mismatch, 0 without a partner") != std::string::npos);
}

TEST_CASE("compare-doc: elided timestamps, missing durations, layers out of order", "[compare-doc]") {
    CliRun r = runWalkthrough("compare-doc " + kFixtures + "good.md --log " + kFixtures + "run.log");
    INFO(r.output);
    CHECK(r.exitCode == 0);
    CHECK(r.output.find("7 documented lines: 7 match") != std::string::npos);
}

TEST_CASE("compare-doc: a wrong shape is named and fails", "[compare-doc]") {
    CliRun r = runWalkthrough("compare-doc " + kFixtures + "wrong_shape.md --log " + kFixtures + "run.log");
    INFO(r.output);
    CHECK(r.exitCode == 1);
    CHECK(r.output.find("wrong_shape.md:8: shape mismatch in scores_softmax (layer 1): documented scores=[32 22 22], logged "
                        "scores=[8 9 9]") != std::string::npos);
}

TEST_CASE("compare-doc: a documented line without a partner is named and fails", "[compare-doc]") {
    CliRun r = runWalkthrough("compare-doc " + kFixtures + "missing_partner.md --log " + kFixtures + "run.log");
    INFO(r.output);
    CHECK(r.exitCode == 1);
    CHECK(r.output.find("missing_partner.md:5: no line of the log matches \"Calling ml.Gelu") != std::string::npos);
    CHECK(r.output.find("1 match, 0 mismatch, 1 without a partner") != std::string::npos);
}

TEST_CASE("compare-doc: a document without [DEBUG] lines is an error", "[compare-doc]") {
    CliRun r = runWalkthrough("compare-doc " + kFixtures + "README.md --log " + kFixtures + "run.log");
    CHECK(r.exitCode == 1);
    CHECK(r.output.find("quotes no [DEBUG] lines") != std::string::npos);
}

TEST_CASE("debug lines: stage, layer, named shapes and the pairing signature", "[compare-doc]") {
    auto lines = linesOf(
        "[DEBUG]10:00:00.000001 Calling LlamaTransformerBlock.Forward for layer: 3 / 32, startPos: 0 -> tensor currentTensor (0.0000 secs)\n"
        "text between lines is ignored\n"
        "  [DEBUG]... Calling ml.MatMul for xq shape([32 22 128]) and keys shape([32 128 22]) -> tensor xqMatMulKeys\n"
        "[DEBUG]... Calling ml.LinearTransformation for output shape([22 4096]) and LlamaAttention.attn_wo weights shape([4096 4096]) -> tensor output (1.5 secs)\n"
        "[DEBUG] ... Returning tensor output: shape([22 4096]) ...\n"
        "[DEBUG]... Calling RMSNorm for currentTensor shape([22 4096]) (result of all transformer blocks) and LlamaTransformer.output_norm weights shape([4096]) -> tensor currentTensor\n");
    REQUIRE(lines.size() == 5);
    CHECK(lines[0].stage == "block");
    CHECK(lines[0].layer == 3);
    CHECK(lines[1].stage == "scores_matmul");
    CHECK(lines[1].layer == 3);
    CHECK(lines[1].lineNo == 3);
    CHECK(formatShapes(lines[1].shapes) == "xq=[32 22 128], keys=[32 128 22]");
    CHECK(lines[1].signature == "Calling ml.MatMul for xq shape(?) and keys shape(?) -> tensor xqMatMulKeys");
    CHECK(lines[2].stage == "attention_wo");
    CHECK(formatShapes(lines[2].shapes) == "output=[22 4096], LlamaAttention.attn_wo=[4096 4096]");
    CHECK(lines[3].stage == "attention_wo");  // "Returning ..." belongs to the line before
    CHECK(lines[3].message == "Returning tensor output: shape([22 4096])");  // the elided duration is not part of it
    CHECK(lines[4].stage == "output_norm");
    CHECK(lines[4].layer == 0);
}

TEST_CASE("doc comparison: unpaired log lines first, in order, and a line quoted twice pairs again", "[compare-doc]") {
    const std::string softmax = "[DEBUG]... Calling ml.Softmax for scores shape([8 9 9]) and dim 2 -> tensor scores\n";
    auto c = compareDocToLog(linesOf(softmax + softmax + softmax), linesOf(softmax + softmax));
    REQUIRE(c.rows.size() == 3);
    CHECK(c.rows[0].log == &c.logLines[0]);
    CHECK(c.rows[1].log == &c.logLines[1]);
    CHECK(c.rows[2].log == &c.logLines[0]);
    CHECK(c.ok());
}

TEST_CASE("doc comparison: a decode step's lines pair with the same step of the log", "[compare-doc]") {
    auto step = [](int startPos, int seqLen) {
        return fmt::format("[DEBUG]... Calling LlamaTransformerBlock.Forward for layer: 1 / 8, startPos: {} -> tensor currentTensor\n"
                           "[DEBUG]... Reshaping results, xq: shape([{} 8 32]), xk: shape([{} 2 32]), xv: shape([{} 2 32])\n",
                           startPos, seqLen, seqLen, seqLen);
    };
    // The document quotes only the second decode step; the log has the prefill and two decode steps.
    auto c = compareDocToLog(linesOf(step(10, 1)), linesOf(step(0, 9) + step(9, 1) + step(10, 1)));
    REQUIRE(c.rows.size() == 2);
    CHECK(c.rows[1].log == &c.logLines[5]);
    CHECK(c.ok());
}

// std::regex recurses per character; a 2000-token prompt's line must not overflow the stack.
TEST_CASE("debug lines: a very long line (a long prompt's token list) parses", "[compare-doc]") {
    std::string line = "[DEBUG]05:21:26.423023 Tokenized the prompt into 20000 tokens:";
    for (int i = 0; i < 20000; ++i) line += " " + std::to_string(i % 128000);
    auto lines = linesOf(line + " (0.0000 secs)\n");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].stage == "tokenize");
    CHECK(lines[0].signature == "Tokenized the prompt into # tokens: #");
}

TEST_CASE("debug lines: separator lines are not operations", "[compare-doc]") {
    CHECK(linesOf("[DEBUG] ... ======================================= ...\n").empty());
}

namespace {
// Every log line the engine writes, tagged with the stage that wrote it.
class MessageRecorder : public StageObserver {
public:
    std::vector<std::pair<std::string, std::string>> lines;  // stage key, message line
    void onStage(const StageEvent& e) override {
        std::istringstream in(e.message);
        for (std::string l; std::getline(in, l);) lines.emplace_back(std::string(e.info().key), l);
    }
};
}  // namespace

// compare-doc recognises stages by the engine's wording; if a message changes, this test says
// which line the pattern table in engine/trace/debug_log_line.cpp no longer knows.
TEST_CASE("debug lines: every message the engine writes is attributed to the stage that wrote it", "[compare-doc]") {
    // tiny computes for real; llama2-7b (N_Rep = 1) as a dry run covers the other wordings.
    for (auto [preset, shapesOnly] : {std::pair{"tiny", false}, std::pair{"llama2-7b", true}}) {
        Model model = makeSyntheticModel(preset, 3, shapesOnly);
        LlamaTransformer transformer(model);
        InferenceContext ctx(model.args, shapesOnly);
        MessageRecorder recorder;
        ctx.addObserver(&recorder);
        Sampler sampler(SamplingSettings{});
        Generator(transformer, *model.tokenizer).generate(ctx, "Hi there", 2, sampler, {});

        std::string log;
        for (const auto& [stage, line] : recorder.lines) log += "[DEBUG]... " + line + "\n";
        auto parsed = linesOf(log);
        REQUIRE(parsed.size() == recorder.lines.size());
        for (size_t i = 0; i < parsed.size(); ++i) {
            INFO(preset << ": " << parsed[i].message);
            CHECK(parsed[i].stage == recorder.lines[i].first);
        }
    }
}
