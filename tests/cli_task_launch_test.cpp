// Q, K and V's three tasks (ml/task_launch.h) run the way LLAMA_TASKS names: the text and the
// log's task marks are the same whichever way runs them, and deferred tasks start in the order
// the block asks for them.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.h"

namespace {
struct LaunchRun {
    std::string text;                 // the generated text's first line
    std::vector<std::string> tasks;   // the tensor each [Calling in goroutine] line names, in order
};

LaunchRun runWith(const std::string& way) {
    const auto log = std::filesystem::temp_directory_path() / ("tasks_" + way + ".log");
    const CliRun run = runShell("LLAMA_TASKS=" + way + " " WALKTHROUGH_EXE " --model " ASSETS_DIR
                                "/model -p 'In the beginning' -n 6 -q --debug-log " + log.string() + " 2>&1");
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    LaunchRun r{run.output.substr(0, run.output.find('\n')), {}};
    std::ifstream in(log);
    const std::regex task(R"(\[Calling in goroutine\].*-> tensor (x[qkv]) )");
    std::smatch m;
    for (std::string line; std::getline(in, line);)
        if (std::regex_search(line, m, task)) r.tasks.push_back(m[1]);
    return r;
}
}  // namespace

TEST_CASE("qkv tasks: new threads, kept threads and deferred tasks give the same text and marks - deferred ones start as asked for",
          "[cli][tasks]") {
    const LaunchRun deferred = runWith("deferred");
    // 8 layers, 6 passes (the prompt's, then one for each token but the last): three tasks each.
    REQUIRE(deferred.tasks.size() == 8 * 6 * 3);
    for (size_t i = 0; i < deferred.tasks.size(); ++i) CHECK(deferred.tasks[i] == std::vector<std::string>{"xq", "xk", "xv"}[i % 3]);
    for (const char* way : {"new-thread", "kept-threads"}) {
        INFO(way);
        const LaunchRun other = runWith(way);
        CHECK(other.text == deferred.text);
        CHECK(other.tasks.size() == deferred.tasks.size());
    }
}

TEST_CASE("qkv tasks: an unknown LLAMA_TASKS is refused, naming the ways there are", "[cli][tasks]") {
    const CliRun run = runShell("LLAMA_TASKS=goroutines " WALKTHROUGH_EXE " --model " ASSETS_DIR "/model -p 'In the beginning' -n 2 -q 2>&1");
    CHECK(run.exitCode != 0);
    CHECK_THAT(run.output, Catch::Contains("LLAMA_TASKS=goroutines: expected new-thread, kept-threads or deferred"));
}
