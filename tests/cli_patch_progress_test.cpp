// `patch` is a forward pass of the whole prompt per layer and position: long prompts take minutes
// or hours. A long grid says so with an estimate, a terminal sees the passes go by with the time
// left, and Ctrl-C ends it with a message and nothing half written; a grid that cannot fit in memory
// is refused before it starts.
#include <unistd.h>

#include <filesystem>
#include <regex>

#include "cli_run.h"
#include "formats_fixtures.h"
#include "patch_trace_output.h"
#include "model/synthetic.h"
#include "session/model_source.h"
#include "stages/stage_event.h"
#include "steer/activation_patching.h"

namespace fs = std::filesystem;
using namespace llama;

namespace {
std::string repeated(const std::string& who, int times) {
    std::string s = "And " + who + " went unto Aaron.";
    for (int i = 0; i < times; ++i) s += " And Aaron said unto the people, Go ye and serve the LORD.";
    return s + " And Aaron said unto";
}

}  // namespace

TEST_CASE("CLI patch: a long grid prints its estimate and stops on Ctrl-C with nothing written", "[cli][patch][interrupt]") {
    const fs::path dir = fs::temp_directory_path() / ("llama_patch_stop_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path err = fs::temp_directory_path() / ("llama_patch_stop_" + std::to_string(getpid()) + ".err");
    // Some 150 tokens: 8 layers x 150 positions, over a minute of passes here; Ctrl-C once the estimate is out.
    const std::string command = std::string(WALKTHROUGH_EXE) + " patch --clean '" + repeated("Moses", 10) + "' --corrupt '" + repeated("Joseph", 10) +
                                "' --answer ' Moses' --wrong ' Joseph' --csv " + (dir / "grid.csv").string() + " --trace " + (dir / "grid.trace").string() +
                                " 2>" + err.string();
    const CliRun r = runShell(command + " & pid=$!; for i in $(seq 600); do grep -q 'in all' " + err.string() +
                              " && break; sleep 0.1; done; kill -INT $pid; wait $pid; echo exit=$?");
    const std::string stderrText = formats_test::readFile(err.string());
    INFO(r.output << stderrText);
    CHECK(r.output.find("exit=130") != std::string::npos);
    CHECK(std::regex_search(stderrText, std::regex(R"(patch: 1\d{3} forward passes, the first took [0-9.]+ s: about \d+:\d\d in all \(Ctrl-C stops it\))")));
    CHECK(std::regex_search(stderrText, std::regex(R"(stopped by Ctrl-C after \d+ of 1\d{3} forward passes; nothing was printed or written \(the table, --csv and --trace come only)")));
    CHECK(stderrText.find('\r') == std::string::npos);  // not a terminal: no progress line
    CHECK(fs::is_empty(dir));                           // no CSV, no trace, no temporary file
    fs::remove_all(dir);
    fs::remove(err);
}

TEST_CASE("CLI patch: on a terminal the passes go by with the time left - piped, a short grid prints no progress", "[cli][patch]") {
    const std::string args = "patch --clean 'And Moses went unto Aaron. And Aaron said unto' --corrupt 'And Joseph went unto Aaron. And Aaron said unto' "
                             "--answer ' Moses' --wrong ' Joseph'";
    // script(1) gives the run a terminal.
    const CliRun tty = runShell("script -qfec \"" + std::string(WALKTHROUGH_EXE) + " " + args + "\" /dev/null");
    INFO(tty.output);
    CHECK(tty.exitCode == 0);
    CHECK(std::regex_search(tty.output, std::regex(R"(\r\x1b\[Kpatch: 90 of 90 forward passes \| \d+:\d\d elapsed \| 0:00 left)")));
    CHECK(tty.output.find("layer") != std::string::npos);
    const CliRun piped = runWalkthrough(args);
    CHECK(piped.exitCode == 0);
    // Piped: no progress line, and the one estimate only for a grid estimated past 10 s (this one
    // is, under the sanitizers).
    CHECK(piped.output.find('\r') == std::string::npos);
    std::smatch estimate;
    if (std::regex_search(piped.output, estimate, std::regex(R"(about (\d+):(\d\d) in all)")))
        CHECK(std::stoi(estimate[1]) * 60 + std::stoi(estimate[2]) >= 10);
}

TEST_CASE("CLI patch: Ctrl-C while the runs for --trace are recorded stops them and writes no trace", "[cli][patch][interrupt]") {
    // The grid is done and printed; Ctrl-C's flag is up as the recording starts.
    const Model model = loadModel(std::string(ASSETS_DIR) + "/model");
    PatchingSetup setup;
    setup.clean = "And Moses went unto Aaron. And Aaron said unto";
    setup.corrupt = "And Joseph went unto Aaron. And Aaron said unto";
    PatchingResult r;
    r.answer = r.wrong = 1;
    r.cleanPosition = r.corruptPosition = {0};
    r.patchedDiff = {{0.0}};
    const fs::path dir = fs::temp_directory_path() / ("llama_patch_trace_stop_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::atomic<bool> stop{true};
    CHECK_THROWS_AS(llama::cli::writePatchingTrace((dir / "grid.trace").string(), model, setup, r, &stop), GenerationStopped);
    CHECK(fs::is_empty(dir));
    fs::remove_all(dir);
}

TEST_CASE("patch: a grid that cannot fit in memory is refused before its first pass, with the gigabytes", "[patch][memory]") {
    // Llama 3.1 8B's shapes (no weights) and two prompts of 60,001 tokens (bytes, and BOS): the
    // attention scores of one pass alone are 32 heads x 60,001^2 floats, twice, about 920 GB.
    Model model = makeSyntheticModel("llama3.1-8b", 1, true);
    model.args.max_seq_len = 100000;
    PatchingSetup setup;
    setup.clean = std::string(60000, 'a');
    setup.corrupt = std::string(60000, 'b');
    setup.answer = "a";
    int64_t passes = -1;
    const PatchingWatch watch{[&](int64_t done, int64_t) { passes = done; }, nullptr};
    CHECK_THROWS_WITH(runActivationPatching(model, setup, watch),
                      Catch::Matches("patching 60001 positions keeps [0-9.]+ GB of activations, and each pass over the prompt needs [0-9.]+ GB "
                                     "\\(its attention scores 921\\.[0-9] GB\\): with the model's [0-9.]+ GB that is more than the [0-9.]+ GB of memory "
                                     "this process may use\\. Shorter prompts need less.*"));
    CHECK(passes == -1);  // refused before the grid's passes were even counted
}
