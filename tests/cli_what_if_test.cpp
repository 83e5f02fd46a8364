// The what-if switches, the stepper's logit lens and `diff`, through the real CLI on the bundled model.
#include <catch2/catch.hpp>

#include "cli_run.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include "test_files.h"

namespace fs = std::filesystem;

namespace {

const std::string kPrompt = "-p \"In the beginning God created the heaven and the earth.\"";
}  // namespace

TEST_CASE("CLI what-if: the experiment heads the debug log and the output", "[cli][whatif]") {
    const fs::path log = fs::temp_directory_path() / "llama_cli_whatif.log";
    CliRun r = runWalkthrough("-n 2 --no-mask --ablate-head 2:3 --debug-log " + log.string() + " " + kPrompt);
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(contains(r.output, "What-if experiment, not the model's own computation: --no-mask --ablate-head 2:3"));
    const std::string text = readFile(log);
    const std::string firstLine = text.substr(0, text.find('\n'));
    CHECK(contains(firstLine, "What-if experiment, not the model's own computation: --no-mask --ablate-head 2:3"));
    CHECK(contains(text, "Skipping addition scores + mask"));
    fs::remove(log);
}

TEST_CASE("CLI what-if: the default run's log has no experiment in it", "[cli][whatif]") {
    const fs::path log = fs::temp_directory_path() / "llama_cli_whatif_default.log";
    CliRun r = runWalkthrough("-q -n 1 --debug-log " + log.string() + " " + kPrompt);
    REQUIRE(r.exitCode == 0);
    const std::string text = readFile(log);
    CHECK_FALSE(contains(text, "What-if"));
    CHECK(contains(text, "Calling ml.Add to calculate scores shape([8 12 12]) + mask shape([12 12]) -> tensor scores"));
    fs::remove(log);
}

TEST_CASE("CLI --no-kv-cache: both timings and whether the logits agree", "[cli][whatif]") {
    CliRun r = runWalkthrough("-n 4 --no-kv-cache " + kPrompt);
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(contains(r.output, "What-if --no-kv-cache: 3 decode steps took"));
    CHECK(contains(r.output, "recomputing the whole sequence; with the KV cache they take"));
    CHECK((contains(r.output, "Logits of all 4 steps are equal") || contains(r.output, "Logits differ slightly")));
}

TEST_CASE("CLI what-if: switches outside the model are refused", "[cli][whatif][hostile]") {
    CliRun layer = runWalkthrough("-q -n 1 --skip-layer 9");
    CHECK(layer.exitCode == 1);
    CHECK(contains(layer.output, "--skip-layer: a layer from 1 to 8, got 9"));
    CliRun head = runWalkthrough("-q -n 1 --ablate-head 2");
    CHECK(head.exitCode != 0);
    CHECK(contains(head.output, "--ablate-head: expected LAYER:HEAD, two numbers from 1 (e.g. 2:5), got '2'"));
    CliRun theta = runWalkthrough("-q -n 1 --rope-theta 0.5");
    CHECK(theta.exitCode != 0);
    CHECK(contains(theta.output, "--rope-theta"));
}

TEST_CASE("CLI --step: lens shows the logit lens of every finished layer", "[cli][step][lens]") {
    CliRun r = runWalkthrough("--step -n 1 -q " + kPrompt, "b ffn_residual 8\nc\nlens\nlens 3\nq\n");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(contains(r.output, "logit lens, step 0: the final norm and output projection applied after each layer"));
    CHECK(contains(r.output, "   input"));
    CHECK(contains(r.output, " layer 8 "));
    CHECK(contains(r.output, "at position 11 (input \".\"), the 3 most likely next tokens:"));
}

TEST_CASE("CLI diff: identical runs agree, --no-mask diverges at the mask", "[cli][diff]") {
    const fs::path a = fs::temp_directory_path() / "llama_cli_diff_a.trace", b = fs::temp_directory_path() / "llama_cli_diff_b.trace",
                   m = fs::temp_directory_path() / "llama_cli_diff_m.trace";
    REQUIRE(runWalkthrough("-q -n 2 --trace " + a.string() + " " + kPrompt).exitCode == 0);
    REQUIRE(runWalkthrough("-q -n 2 --trace " + b.string() + " " + kPrompt).exitCode == 0);
    REQUIRE(runWalkthrough("-q -n 2 --no-mask --trace " + m.string() + " " + kPrompt).exitCode == 0);
    CliRun same = runWalkthrough("diff " + a.string() + " " + b.string());
    INFO(same.output);
    CHECK(same.exitCode == 0);
    CHECK(contains(same.output, "No divergence"));
    CliRun differ = runWalkthrough("diff " + a.string() + " " + m.string() + " --step 0");
    INFO(differ.output);
    CHECK(differ.exitCode == 2);
    CHECK(contains(differ.output, "First divergence: step 0, outside the layers, stage 4 mask: mask only in A"));
    CHECK(contains(differ.output, "over step 0"));
    CHECK(contains(differ.output, "what-if: --no-mask"));
    for (const auto& p : {a, b, m}) fs::remove(p);
}
