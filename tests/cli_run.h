#pragma once
// Runs the llama-walkthrough executable built beside the tests and captures what it prints.
#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

struct CliRun {
    int exitCode;
    std::string output;  // stdout and stderr together
};

// A shell command line, what it prints on stdout (add 2>&1 for stderr) and its exit code.
inline CliRun runShell(const std::string& command) {
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe);
    std::string out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
    int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

// `input`, when given, is the program's stdin (a file, so its end is a real EOF).
inline CliRun runWalkthrough(const std::string& args, const std::optional<std::string>& input = std::nullopt) {
    std::string cmd = std::string(WALKTHROUGH_EXE) + " " + args;
    if (input) {
        // One file per call: ctest runs tests in parallel processes.
        static int counter = 0;
        auto in = std::filesystem::temp_directory_path() /
                  ("llama_cli_stdin_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + ".txt");
        std::ofstream(in) << *input;
        cmd += " < " + in.string();
    }
    return runShell(cmd + " 2>&1");
}

// A refusal: exit code 1 and one clear message, "error: " and `expected` in it.
inline void requireOneClearError(const CliRun& r, const std::string& expected) {
    INFO(r.output);
    REQUIRE(r.exitCode == 1);
    REQUIRE(r.output.find("error: ") != std::string::npos);
    REQUIRE(r.output.find(expected) != std::string::npos);
}

// The bundled model as an F32 GGUF (what llama.cpp's goldens ran on), written once per test
// process and removed when the process ends.
inline const std::string& bundledF32Gguf() {
    struct RemovedAtExit {
        std::string path;
        ~RemovedAtExit() {
            std::error_code ignored;
            std::filesystem::remove(path, ignored);
        }
    };
    static const RemovedAtExit file{[] {
        auto p = std::filesystem::temp_directory_path() / ("llama_bundled_f32_" + std::to_string(getpid()) + ".gguf");
        auto r = runWalkthrough("convert --model " + std::string(ASSETS_DIR) + "/model --to gguf-f32 --out " + p.string());
        REQUIRE(r.exitCode == 0);
        return p.string();
    }()};
    return file.path;
}

// The generated text of a -q run: what comes before the summary line.
inline std::string generatedText(const CliRun& r) {
    const auto end = r.output.rfind("\n\nPrompt tokens:");
    REQUIRE(end != std::string::npos);
    return r.output.substr(0, end);
}

// A shell script that starts `command` in the background, held by the stepper at its first stage,
// for a test to signal: its stdin a FIFO that stays open and never sends (the program opens it for
// reading and writing, `0<>`, so it holds the only writer itself), its stdout and stderr `output`.
// The script goes on once the first stage is printed there (the signal then finds the stepper
// waiting, however slow the build, ASan's included), with the shell's $pid the run's. `timeout`
// kills a run the test's signal failed to end within 60 s; --foreground, because without it
// timeout passes a SIGINT on twice (to the child, then to its process group), and a second Ctrl-C
// ends the program at once. A `sleep N |` writer kept the caller's output pipe open for its N
// seconds after the run ended (the Ctrl-C test waited 60 s for it). No quotes: callers quote the
// script whole.
inline std::string heldAtFirstStage(const std::string& command, const std::filesystem::path& fifo, const std::filesystem::path& output) {
    std::filesystem::remove(fifo);
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    return "timeout --foreground -s KILL 60 " + command + " 0<>" + fifo.string() + " >" + output.string() + " 2>&1 & pid=$!; " +
           "for i in $(seq 600); do grep -q Stage.1: " + output.string() + " && break; sleep 0.1; done; ";
}

// A shell word: 's' (the tests' prompts hold no single quote).
inline std::string quoted(const std::string& s) { return "'" + s + "'"; }

// A fixture's goldens (the llama.cpp runs a committed script recorded), read whole.
inline nlohmann::json readGoldens(const std::string& path) {
    std::ifstream in(path);
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

// A scratch folder, removed however the test ends.
struct ScratchDir {
    std::filesystem::path path;
    ~ScratchDir() { std::filesystem::remove_all(path); }
};
