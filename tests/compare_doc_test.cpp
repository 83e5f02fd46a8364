// compare-doc: a document's quoted [DEBUG] lines against a real debug log. Our own chapter 10
// must match a fresh run; hand-made documents with deliberate errors must fail, naming them.
#include <catch2/catch.hpp>

#include "cli_run.h"
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <filesystem>
#include <random>
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

namespace {
const std::string kWalkthrough = kFixtures + "walkthrough/";

// A shapes-only run of a preset, as the walkthrough's documents ran it: one forward pass of the
// prompt (-n 1) with a 200-position context.
fs::path presetLog(const std::string& preset, const std::string& prompt) {
    fs::path log = fs::temp_directory_path() / ("llama_compare_doc_" + preset + ".log");
    CliRun gen = runWalkthrough("--synthetic " + preset + " --dry-run --max-seq-len 200 -n 1 -q -p \"" + prompt + "\" --debug-log " + log.string());
    INFO(gen.output);
    REQUIRE(gen.exitCode == 0);
    return log;
}

std::vector<std::string> messagesOf(const fs::path& file) {
    std::vector<std::string> out;
    for (const DebugLine& l : readDebugLinesFile(file.string())) out.push_back(l.message);
    return out;
}
}  // namespace

// The walkthrough's own quoted lines (tests/fixtures/compare_doc/walkthrough, extracted from its
// documents by extract.sh): with the byte tokenizer, a 21-character prompt is its 22 tokens and a
// 31-character one Llama 2's 32.
TEST_CASE("compare-doc: the walkthrough's Llama 3.1 8B and Llama 2 7B lines, word for word", "[compare-doc]") {
    struct Case {
        std::string preset, prompt, document, summary;
        std::vector<std::string> inconsistencies;
    };
    for (const Case& c : {Case{"llama3.1-8b", "Tell me a short story", "llama3.1-8b.md",
                               "46 documented lines: 45 match, 0 mismatch, 0 without a partner, 1 documented inconsistencies",
                               {"llama3.1-8b.md:17: documented inconsistency in block (layer 1): mask is shape([]) here, but line 19 "
                                "documents shape([22 22])"}},
                          Case{"llama2-7b", "Tell me a short story about cats", "llama2-7b.md",
                               "46 documented lines: 44 match, 0 mismatch, 0 without a partner, 2 documented inconsistencies",
                               {"llama2-7b.md:16: documented inconsistency in block (layer 1): startPos is 32 here, but line 19 documents 0",
                                "llama2-7b.md:17: documented inconsistency in block (layer 1): mask is shape([]) here, but line 19 documents "
                                "shape([32 32])",
                                "llama2-7b.md:17: documented inconsistency in block (layer 1): startPos is 32 here, but line 19 documents 0"}}}) {
        INFO(c.preset);
        fs::path log = presetLog(c.preset, c.prompt.substr(0, c.preset == "llama2-7b" ? 31 : 21));
        CliRun cmp = runWalkthrough("compare-doc " + kWalkthrough + c.document + " --log " + log.string());
        INFO(cmp.output);
        CHECK(cmp.exitCode == 0);
        CHECK(cmp.output.find(c.summary) != std::string::npos);
        for (const auto& line : c.inconsistencies) CHECK(cmp.output.find(line) != std::string::npos);

        // Word for word: every documented message is a message of the log, but the lines the
        // document contradicts itself on (the block lines).
        const auto logged = messagesOf(log);
        int missing = 0;
        for (const DebugLine& d : readDebugLinesFile(kWalkthrough + c.document))
            if (std::find(logged.begin(), logged.end(), d.message) == logged.end()) {
                UNSCOPED_INFO("not in the log: " << d.message);
                ++missing;
            }
        CHECK(missing == int(c.preset == "llama2-7b" ? 2 : 1));
    }
}

TEST_CASE("compare-doc --any-length: a document for 22 or 32 tokens checks a log of another prompt", "[compare-doc]") {
    for (auto [preset, document, seqLen] : {std::tuple{"llama3.1-8b", "llama3.1-8b.md", 22}, std::tuple{"llama2-7b", "llama2-7b.md", 32}}) {
        fs::path log = presetLog(preset, "Hi there");  // 9 tokens with the byte tokenizer
        CliRun strict = runWalkthrough("compare-doc " + kWalkthrough + document + " --log " + log.string());
        CHECK(strict.exitCode == 1);
        CliRun cmp = runWalkthrough("compare-doc " + kWalkthrough + document + " --log " + log.string() + " --any-length");
        INFO(cmp.output);
        CHECK(cmp.exitCode == 0);
        CHECK(cmp.output.find(fmt::format("Sequence length: documented {} stands for logged 9", seqLen)) != std::string::npos);
        CHECK(cmp.output.find(" 0 mismatch, 0 without a partner") != std::string::npos);
    }
}

TEST_CASE("doc comparison: values are compared, not only shapes", "[compare-doc]") {
    const std::string logged =
        "[DEBUG]... [Scheduling goroutine] ml.LinearTransformation for x shape([9 256]) and LlamaAttention.attn_wq weights "
        "shape([256 256]) -> tensor xq\n"
        "[DEBUG]... Calling ml.Softmax for scores shape([8 9 9]) and dim 2 -> tensor scores\n"
        "[DEBUG]... Converting scores tensor shape([8 9 9]) to BFloat16 tensor -> tensor scores\n"
        "[DEBUG]... Sampled next token 44 \",\" from logits shape([4096]) (greedy: argmax)\n";
    auto c = compareDocToLog(linesOf("[DEBUG]... [Scheduling goroutine] ml.LinearTransformation for x shape([9 256]) and "
                                     "LlamaAttention.attn_wq weights shape([256 256]) -> tensor xk\n"
                                     "[DEBUG]... Calling ml.Softmax for scores shape([8 9 9]) and dim 1 -> tensor scores\n"
                                     "[DEBUG]... Converting scores tensor shape([8 9 9]) to Float32 tensor -> tensor scores\n"
                                     "[DEBUG]... Sampled next token 268 \" of\" from logits shape([4096]) (greedy: argmax)\n"),
                             linesOf(logged));
    REQUIRE(c.rows.size() == 4);
    CHECK(c.mismatches() == 4);
    auto only = [&](int row) {
        REQUIRE(c.rows[row].differences.size() >= 1);
        const auto& d = c.rows[row].differences[0];
        return d.name + ": " + d.documented + " / " + d.logged;
    };
    CHECK(only(0) == "target: xk / xq");
    CHECK(only(1) == "dim: 1 / 2");
    CHECK(only(2) == "dtype: Float32 / BFloat16");
    CHECK(only(3) == "token: 268 / 44");
    CHECK(c.rows[3].differences.at(1).documented == "\" of\"");
    CHECK(compareDocToLog(linesOf(logged), linesOf(logged)).ok());
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
    CHECK(r.output.find("wrong_shape.md:8: mismatch in scores_softmax (layer 1): scores documented shape([32 22 22]), logged "
                        "shape([8 9 9])") != std::string::npos);
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
    CHECK(lines[1].signature == "Calling ml.MatMul for xq shape(?) and keys shape(?) -> tensor ?");
    CHECK(formatValues(lines[1].values) == "target=xqMatMulKeys");
    CHECK(formatValues(lines[0].values) == "layer=3 / 32, startPos=0, target=currentTensor");
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

// compareDocToLog finds partners and contradicting lines through indexes (linear in the sizes);
// here every choice is checked against the rules of doc_compare.h applied by brute force, on
// random small documents and logs whose values compare as written (no --any-length).
TEST_CASE("doc comparison: indexed pairing and documented-elsewhere agree with the rules applied to every candidate", "[compare-doc]") {
    std::mt19937 rng(2411);
    auto pick = [&](int n) { return int(rng() % unsigned(n)); };
    auto randomLine = [&](int lineNo, bool doc) {
        DebugLine l;
        l.lineNo = lineNo;
        l.signature = pick(2) ? "A" : "B";
        l.exactText = l.signature + std::to_string(pick(2));
        l.layer = pick(3);
        l.startPos = doc && pick(4) == 0 ? -1 : 5 * pick(2);
        l.shapes = {{"x", {2 + pick(2), 3}}};
        l.values = {{"startPos", std::to_string(5 * pick(2))}, {"dtype", pick(2) ? "F32" : "BF16"}};
        return l;
    };
    auto written = [](const DebugLine& l) {  // each item's name and how it is written, in order
        std::vector<std::pair<std::string, std::string>> items;
        for (const auto& [name, shape] : l.shapes) items.emplace_back(name, "shape(" + shapeToString(shape) + ")");
        for (const auto& v : l.values) items.emplace_back(v.name, v.text);
        return items;
    };
    for (int trial = 0; trial < 400; ++trial) {
        std::vector<DebugLine> doc, log;
        for (int i = 0, n = pick(25); i < n; ++i) doc.push_back(randomLine(i + 1, true));
        for (int i = 0, n = pick(25); i < n; ++i) log.push_back(randomLine(i + 1, false));
        const auto c = compareDocToLog(doc, log);
        REQUIRE(c.rows.size() == doc.size());
        // Pairing: the candidate with the highest preference score, the earliest of equals.
        std::vector<bool> used(log.size());
        size_t next = 0;
        for (size_t r = 0; r < doc.size(); ++r) {
            const DebugLine& d = doc[r];
            int bestScore = -1;
            size_t best = 0;
            for (size_t i = 0; i < log.size(); ++i) {
                if (log[i].signature != d.signature) continue;
                const int score = 16 * (d.startPos < 0 || log[i].startPos == d.startPos) + 8 * (log[i].layer == d.layer) +
                                  4 * (log[i].exactText == d.exactText) + 2 * !used[i] + (i >= next);
                if (score > bestScore) bestScore = score, best = i;
            }
            INFO("trial " << trial << ", documented line " << d.lineNo);
            if (bestScore < 0) {
                CHECK(c.rows[r].log == nullptr);
                continue;
            }
            REQUIRE(c.rows[r].log == &c.logLines[best]);
            used[best] = true;
            next = best + 1;
        }
        // Documented elsewhere: the nearest other row of the layer, paired, not differing on that
        // name itself, with an item of that name written as the log writes it; the first of equals.
        for (const DocComparisonRow& row : c.rows) {
            for (const LineDifference& diff : row.differences) {
                std::string logged;
                for (const auto& [name, text] : written(*row.log))
                    if (name == diff.name) {
                        logged = text;
                        break;
                    }
                int expected = 0, bestDistance = 0;
                for (const DocComparisonRow& other : c.rows) {
                    if (&other == &row || !other.log || other.doc.layer != row.doc.layer) continue;
                    if (std::any_of(other.differences.begin(), other.differences.end(), [&](const LineDifference& o) { return o.name == diff.name; }))
                        continue;
                    for (const auto& [name, text] : written(other.doc)) {
                        const int distance = std::abs(other.doc.lineNo - row.doc.lineNo);
                        if (name != diff.name || text != logged || (expected && distance >= bestDistance)) continue;
                        expected = other.doc.lineNo;
                        bestDistance = distance;
                    }
                }
                INFO("trial " << trial << ", documented line " << row.doc.lineNo << ", " << diff.name);
                CHECK(diff.documentedElsewhere == expected);
                if (expected) CHECK(diff.elsewhere == logged);
            }
        }
    }
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
