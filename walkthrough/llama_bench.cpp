#include "llama_bench.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "child_process.h"
#include "formats/gguf/gguf_model.h"

namespace llama::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// stderrText: what llama-bench wrote there, when it ran at all.
int failed(const std::string& why, const std::optional<std::string>& stderrText) {
    fmt::print(stderr, "error: llama-bench gave no figures to compare with: {}\n", why);
    if (stderrText) fmt::print(stderr, "its stderr ends with:\n{}", lastLines(*stderrText, 15));
    fmt::print(stderr, "Our own figures above stand.\n");
    return 1;
}

const LlamaBenchTest* findTest(const LlamaBenchReport& report, int nPrompt, int nGen) {
    for (const LlamaBenchTest& t : report.tests)
        if (t.nPrompt == nPrompt && t.nGen == nGen) return &t;
    return nullptr;
}

void printRow(const std::string& label, const LlamaBenchTest* theirs, double ours) {
    std::string theirsText = theirs ? fmt::format("{:.2f} ± {:.2f}", theirs->avgTokensPerSecond, theirs->stddevTokensPerSecond) : "(missing)";
    std::string ratio = theirs && theirs->avgTokensPerSecond > 0 ? fmt::format("{:.2f}", ours / theirs->avgTokensPerSecond) : "-";
    fmt::print("{:<22} {:>18} {:>20.2f} {:>15}\n", label, theirsText, ours, ratio);
}

}  // namespace

LlamaBenchReport parseLlamaBenchJson(const std::string& text) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw std::runtime_error("llama-bench printed nothing on stdout");
    json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded()) throw std::runtime_error("llama-bench's output is not valid JSON");
    if (!doc.is_array() || doc.empty()) throw std::runtime_error("llama-bench's output is not a JSON array of tests");
    LlamaBenchReport report;
    for (size_t i = 0; i < doc.size(); ++i) {
        const json& t = doc[i];
        auto field = [&](const char* key, bool integer) -> const json& {
            if (!t.is_object() || !t.contains(key) || !(integer ? t[key].is_number_integer() : t[key].is_number()))
                throw std::runtime_error(fmt::format("llama-bench's test {} has no {} '{}'", i, integer ? "integer" : "number", key));
            return t[key];
        };
        report.tests.push_back({field("n_prompt", true).get<int>(), field("n_gen", true).get<int>(), field("avg_ts", false).get<double>(),
                                field("stddev_ts", false).get<double>()});
        if (report.buildCommit.empty() && t.contains("build_commit") && t["build_commit"].is_string())
            report.buildCommit = t["build_commit"].get<std::string>();
    }
    return report;
}

void requireLlamaBenchInputs(const std::string& option, const std::string& tool, const std::string& model, bool synthetic) {
    if (synthetic)
        throw std::invalid_argument(fmt::format("{} runs llama.cpp on the same file: give --model FILE.gguf instead of --synthetic "
                                                "(`convert --synthetic PRESET --to gguf-bf16 --out FILE.gguf` writes one)",
                                                option));
    if (!isGgufFile(model))
        throw std::invalid_argument(fmt::format("{} needs --model to be a GGUF file, the format llama.cpp reads; '{}' is not one "
                                                "(`convert --model {} --to gguf-bf16 --out FILE.gguf` writes one)",
                                                option, model, model));
    // A bare name is looked up in PATH when it is started.
    if (tool.find('/') != std::string::npos && (!fs::is_regular_file(tool) || access(tool.c_str(), X_OK) != 0))
        throw std::invalid_argument(fmt::format("{} '{}' is not an executable file", option, tool));
}

int compareWithLlamaBench(const BenchComparison& c) {
    const std::vector<std::string> args = {c.llamaBench, "-m", c.model, "-t", std::to_string(c.threads),
                                           "-p", fmt::format("{}", fmt::join(c.promptTokens, ",")), "-n", std::to_string(c.decodeTokens),
                                           "-r", std::to_string(c.repeats), "-o", "json"};
    fmt::print("\nllama.cpp: {}\n", fmt::join(args, " "));
    std::fflush(stdout);
    ProcessResult run;
    try {
        run = runProcess(args);
    } catch (const std::exception& e) {
        return failed(e.what(), std::nullopt);
    }
    if (run.exitCode != 0) return failed(fmt::format("it exited with code {}", run.exitCode), run.err);
    LlamaBenchReport report;
    try {
        report = parseLlamaBenchJson(run.out);
    } catch (const std::exception& e) {
        return failed(e.what(), run.err);
    }

    fmt::print("\n{:<22} {:>18} {:>20} {:>15}\n", "", "llama.cpp tok/s", "ours tok/s (median)", "ours/llama.cpp");
    for (size_t i = 0; i < c.promptTokens.size(); ++i)
        printRow(fmt::format("prefill ({} tokens)", c.promptTokens[i]), findTest(report, c.promptTokens[i], 0), c.oursPrefillTps[i]);
    printRow(fmt::format("decode ({} tokens)", c.decodeTokens), findTest(report, 0, c.decodeTokens), c.oursDecodeTps);
    fmt::print("llama.cpp{}: mean ± stddev over {} run{}; both decodes start from an empty context.\n",
               report.buildCommit.empty() ? "" : " " + report.buildCommit, c.repeats, c.repeats == 1 ? "" : "s");
    return 0;
}

}  // namespace llama::cli
