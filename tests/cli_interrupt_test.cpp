// Ctrl-C and a closed stdout end a run cleanly: the summary says why, the trace has its END
// record, the debug log is whole.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_run.h"
#include "trace/trace_reader.h"

namespace fs = std::filesystem;

namespace {

std::string shell(const std::string& script) {
    FILE* pipe = popen(("bash -c '" + script + "' 2>&1").c_str(), "r");
    REQUIRE(pipe);
    std::string out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
    pclose(pipe);
    return out;
}

std::string lastLine(const fs::path& file) {
    std::ifstream in(file);
    std::string line, last;
    while (std::getline(in, line)) last = line;
    return last;
}

fs::path tempDir(const std::string& name) {
    auto dir = fs::temp_directory_path() / ("llama_interrupt_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

}  // namespace

TEST_CASE("interrupt: Ctrl-C stops a run like the stepper's q, with complete files", "[cli][interrupt]") {
    const fs::path dir = tempDir("sigint");
    // The stepper waits for a command on a stdin that never sends one; Ctrl-C must wake it.
    const std::string out = shell(heldAtFirstStage(std::string(WALKTHROUGH_EXE) + " --synthetic tiny --step -n 4 --trace " +
                                                       (dir / "run.trace").string() + " --debug-log " + (dir / "run.log").string(),
                                                   dir / "stdin", dir / "out.txt") +
                                  "kill -INT $pid; wait $pid; echo exit=$?; cat " + (dir / "out.txt").string());
    INFO(out);
    CHECK(out.find("stopped by: interrupt") != std::string::npos);
    CHECK(out.find("(interrupted: stopping the generation)") != std::string::npos);
    CHECK(out.find("end of input") == std::string::npos);  // Ctrl-C is not the end of a piped script
    CHECK(out.find("exit=0") != std::string::npos);
    const llama::TraceRun run = llama::readTrace((dir / "run.trace").string());
    CHECK(run.stopReason == "interrupt");
    CHECK(lastLine(dir / "run.log").find("[DEBUG]") == 0);
    fs::remove_all(dir);
}

TEST_CASE("interrupt: a closed stdout stops generating and leaves complete files", "[cli][interrupt]") {
    const fs::path dir = tempDir("sigpipe");
    const std::string out = shell(std::string(WALKTHROUGH_EXE) + " --synthetic tiny -q -n 1000 --max-seq-len 1100 --trace " +
                                  (dir / "run.trace").string() + " --debug-log " + (dir / "run.log").string() +
                                  " 2>" + (dir / "stderr.txt").string() + " | head -c 5 > /dev/null; echo exit=${PIPESTATUS[0]}");
    INFO(out);
    CHECK(out.find("exit=0") != std::string::npos);
    std::stringstream err;
    err << std::ifstream(dir / "stderr.txt").rdbuf();
    CHECK(err.str().find("stdout was closed") != std::string::npos);
    const llama::TraceRun run = llama::readTrace((dir / "run.trace").string());
    CHECK(run.stopReason == "stdout closed");
    CHECK(run.generatedTokens.size() < 1000);
    CHECK(lastLine(dir / "run.log").find("Sampled next token") != std::string::npos);
    fs::remove_all(dir);
}
