// `llama-walkthrough batch` from the command line: the texts and summary, and bad input (a
// prompts file that is empty, binary or has a 100 MB line; --parallel 0 or huge; prompts that do
// not fit), each a clear error naming the option or file and line, exit 1, nothing written.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "cli_run.h"

namespace fs = std::filesystem;

namespace {
fs::path scratchFile(const std::string& name, const std::string& bytes) {
    const fs::path path = fs::temp_directory_path() / ("llama_cli_batch_" + std::to_string(getpid()) + "_" + name);
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}
}  // namespace

TEST_CASE("CLI batch: prompts from a file, decoded together, each as alone, with a summary", "[cli][batch]") {
    const fs::path prompts = scratchFile("prompts.txt", "And God said\n\nIn the beginning\r\nThe LORD is my shepherd\n");
    const CliRun r = runWalkthrough("batch -q --prompts-file " + prompts.string() + " --parallel 2 -n 12");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    const CliRun alone = runWalkthrough("-q -p \"In the beginning\" -n 12");
    const std::string text = alone.output.substr(0, alone.output.find('\n'));
    CHECK(r.output.find("[2] In the beginning" + text) != std::string::npos);
    CHECK(r.output.find("Batch: 3 prompts, --parallel 2 | shared prefix: 1 token, stored once") != std::string::npos);
    CHECK(r.output.find("KV cells: at most") != std::string::npos);
    fs::remove(prompts);
}

TEST_CASE("CLI batch: bad prompts files and settings are refused, naming the file, line or option", "[cli][batch][hostile]") {
    const fs::path empty = scratchFile("empty.txt", "\n  \n\n");
    requireOneClearError(runWalkthrough("batch -q --prompts-file " + empty.string()), "no prompt in it (one prompt per line)");
    const fs::path binary = scratchFile("binary.txt", std::string("And God said\nIn\0the beginning\n", 29));
    requireOneClearError(runWalkthrough("batch -q --prompts-file " + binary.string()), "line 2 column 3: a NUL byte");
    const fs::path latin1 = scratchFile("latin1.txt", "caf\xe9\n");
    requireOneClearError(runWalkthrough("batch -q --prompts-file " + latin1.string()), "line 1 column 4: not UTF-8 text");
    const fs::path huge = scratchFile("huge.txt", "ok\n" + std::string(100 << 20, 'a') + "\n");
    requireOneClearError(runWalkthrough("batch -q --prompts-file " + huge.string()), "line 2: 104857600 bytes; a prompt line may hold at most 1048576");
    requireOneClearError(runWalkthrough("batch -q --prompts-file /nonexistent/prompts.txt"), "/nonexistent/prompts.txt");
    for (const fs::path& p : {empty, binary, latin1, huge}) fs::remove(p);

    for (const char* n : {"0", "100000", "-1"}) {
        const CliRun r = runWalkthrough(std::string("batch -q -p a --parallel ") + n);
        INFO(r.output);
        CHECK(r.exitCode != 0);
        CHECK(r.output.find(std::string("--parallel: expected a number of sequences from 1 to 256, got '") + n + "'") != std::string::npos);
    }
    requireOneClearError(runWalkthrough("batch -q -p a -p b -p c --parallel 3 --max-seq-len 4"), "3 sequences do not fit in --max-seq-len 4");
    requireOneClearError(runWalkthrough("batch -q -p \"In the beginning God created the heaven and the earth\" -p a --parallel 2 --max-seq-len 16"),
                 "prompt 1 has 11 tokens, but each of the 2 sequences has room for 8 positions of --max-seq-len 16");
    requireOneClearError(runWalkthrough("batch -q"), "give prompts with -p (repeatable) or --prompts-file");
    requireOneClearError(runWalkthrough("batch -q -p a --keep 4"), "--keep applies to --context-shift");
    // Nothing partial: a refused run writes no debug log.
    const fs::path log = fs::temp_directory_path() / ("llama_cli_batch_" + std::to_string(getpid()) + ".log");
    requireOneClearError(runWalkthrough("batch -q -p a -p b -p c --parallel 3 --max-seq-len 4 --debug-log " + log.string()), "do not fit");
    CHECK_FALSE(fs::exists(log));
}

TEST_CASE("CLI batch: the stepper labels a batch's mask rows by token (seq:pos) and columns by cell", "[cli][batch][step]") {
    const CliRun r = runWalkthrough("batch -q -p \"And God said\" -p \"In the beginning\" --parallel 2 -n 2 --step", "b kv_mask\nc\nc\np mask\nq\n");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    // The prompts' ubatch: sequence 1's tokens at positions 1-3, then sequence 2's; the cells after
    // find_slot: BOS shared by sequences 0, 1 and 2 at position 0, then each prompt's cells.
    const size_t at = r.output.find("mask [6 7] BF16\n");
    REQUIRE(at != std::string::npos);
    const std::string header = r.output.substr(at, r.output.find('\n', at + 17) - at);
    CHECK_THAT(header, Catch::Contains("0,1,2:0") && Catch::Contains("1:3") && Catch::Contains("2:1"));
    CHECK(header.find('?') == std::string::npos);
    CHECK_THAT(r.output, Catch::Contains("[0] 1:1") && Catch::Contains("[3] 2:1") && Catch::Contains("[5] 2:3"));
}

TEST_CASE("CLI batch: --trace records the batch, refused where it would overwrite an input", "[cli][batch][trace]") {
    const fs::path trace = fs::temp_directory_path() / ("llama_cli_batch_" + std::to_string(getpid()) + ".trace");
    const CliRun r = runWalkthrough("batch -q -p \"And God said\" -p \"In the beginning\" --parallel 2 -n 2 --trace " + trace.string());
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.output, Catch::Contains("Trace written to " + trace.string()));
    const CliRun page = runWalkthrough("export-html " + trace.string() + " --out " + trace.string() + ".html");
    INFO(page.output);
    CHECK(page.exitCode == 0);
    const CliRun same = runWalkthrough("batch -q -p a -p b -n 2 --trace " + trace.string() + " --debug-log " + trace.string());
    CHECK(same.exitCode == 1);
    CHECK_THAT(same.output, Catch::Contains("is also another output of this run"));
    fs::remove(trace);
    fs::remove(trace.string() + ".html");
}
