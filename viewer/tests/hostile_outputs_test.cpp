// Every writer of the project, pointed at its own inputs (issue 36): the run's outputs (--trace,
// --debug-log, --html), export-html, convert, llama-site and the viewer's exports each refuse
// before any work, and the input is left as it was. Temporary files never follow a planted link.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "io/atomic_output.h"
#include "state/tensor_export.h"
#include "trace/trace_reader.h"
#include "test_files.h"

using namespace llama;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

fs::path scratch() {
    const fs::path dir = fs::temp_directory_path() / ("llama_hostile_outputs_" + std::to_string(getpid()));
    fs::create_directories(dir);
    return dir;
}

// A copy of the bundled model (the real one must never be at risk) and a trace of it.
const fs::path& model() {
    static const fs::path dir = [] {
        const fs::path d = scratch() / "model";
        fs::create_directories(d);
        for (const auto& entry : fs::directory_iterator(ASSETS_DIR "/model")) fs::copy_file(entry.path(), d / entry.path().filename());
        return d;
    }();
    return dir;
}
const fs::path& runTrace() {
    static const fs::path path = [] {
        const fs::path p = scratch() / "run.trace";
        REQUIRE(runWalkthrough("--model " + model().string() + " -p Hi -n 1 -q --trace " + p.string()).exitCode == 0);
        return p;
    }();
    return path;
}

// `command` fails naming `option`, and `input` is unchanged.
void refuses(const std::string& command, const fs::path& input, const std::string& option) {
    const std::string before = readFile(input);
    const CliRun r = runShell(command + " 2>&1");
    INFO(command << "\n" << r.output);
    CHECK(r.exitCode != 0);
    CHECK_THAT(r.output, Contains(option));
    CHECK(readFile(input) == before);
}

}  // namespace

TEST_CASE("every writer refuses to write over a file it reads", "[hostile][outputs]") {
    const std::string run = std::string(WALKTHROUGH_EXE) + " --model " + model().string() + " -p Hi -n 1 -q";
    const fs::path checkpoint = model() / "consolidated.00.pth", tokenizer = model() / "tokenizer.model";
    // The run's outputs.
    refuses(run + " --trace " + checkpoint.string(), checkpoint, "--trace");
    refuses(run + " --debug-log " + tokenizer.string(), tokenizer, "--debug-log");
    refuses(run + " --html " + checkpoint.string(), checkpoint, "--html");
    refuses(run + " --html " + runTrace().string(), runTrace(), "is also another output");  // its trace would go to run.trace
    refuses(run + " --html " + (scratch() / "run.html").string() + " --debug-log " + (scratch() / "run.trace").string(), runTrace(), "--debug-log");
    // export-html.
    const fs::path other = scratch() / "other.trace";
    fs::copy_file(runTrace(), other, fs::copy_options::overwrite_existing);
    const std::string exportHtml = std::string(WALKTHROUGH_EXE) + " export-html " + runTrace().string();
    refuses(exportHtml + " --out " + runTrace().string(), runTrace(), "--out");
    refuses(exportHtml + " --compare " + other.string() + " --out " + other.string(), other, "--out");
    // convert: the model, and a tokenizer.bin beside --out that belongs to another model.
    const std::string convert = std::string(WALKTHROUGH_EXE) + " convert --model " + model().string();
    refuses(convert + " --to gguf-q8_0 --out " + checkpoint.string(), checkpoint, "--out");
    const fs::path otherModel = scratch() / "other-model";
    fs::create_directories(otherModel);
    std::ofstream(otherModel / "tokenizer.bin") << "another model's tokenizer";
    refuses(convert + " --to llama2c --out " + (otherModel / "model.bin").string(), otherModel / "tokenizer.bin", "tokenizer.bin");
    CHECK_FALSE(fs::exists(otherModel / "model.bin"));
    refuses(convert + " --to llama2c --out /dev/null", checkpoint, "not a regular file");
    CHECK_FALSE(fs::exists("/dev/tokenizer.bin"));
#ifdef SITE_EXE
    // llama-site: never the chapters, a folder holding the trace, or a folder it did not make.
    const std::string site = std::string(SITE_EXE) + " --chapters " + CHAPTERS_DIR + " --trace " + runTrace().string();
    refuses(site + " --out " + CHAPTERS_DIR, fs::path(CHAPTERS_DIR) / "README.md", "--out");
    refuses(site + " --out " + scratch().string(), runTrace(), "--out");
    const fs::path notes = scratch() / "notes";
    fs::create_directories(notes);
    std::ofstream(notes / "mine.txt") << "someone's notes";
    refuses(site + " --out " + notes.string(), notes / "mine.txt", "llama-site did not write");
#endif
    // The viewer's exports (screenshots check the same way): once a trace is read, no export goes over it.
    const TraceRun replay = readTrace(runTrace().string());
    CHECK_THROWS_WITH(viewer::writeCsv(runTrace().string(), viewer::Slice2D{1, 1, {0.0f}}), Contains("a file this run reads"));
    CHECK_THROWS_WITH(viewer::writeNpy(runTrace().string(), Tensor({1}, DType::F32)), Contains("a file this run reads"));
    CHECK_THROWS_WITH(checkOutputPath("screenshot", runTrace().string(), {}), Contains("a file this run reads"));
    // Whatever path names it (a link, a relative path).
    const fs::path link = scratch() / "link-to-trace";
    fs::remove(link);
    fs::create_symlink(runTrace(), link);
    CHECK_THROWS_WITH(viewer::writeCsv(link.string(), viewer::Slice2D{1, 1, {0.0f}}), Contains("a file this run reads"));
    // The last guard: AtomicOutputFile itself.
    CHECK_THROWS_WITH(AtomicOutputFile(runTrace().string()), Contains("a file this run reads"));
}

TEST_CASE("a temporary output file is created exclusively and never through a planted link", "[hostile][outputs]") {
    const fs::path dir = scratch() / "planted";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path victim = dir / "victim.txt", out = dir / "out.bin";
    std::ofstream(victim) << "precious";
    // The name the temporary file once had, and a link at the destination's own name.
    fs::create_symlink(victim, dir / ("out.bin.tmp-" + std::to_string(getpid())));
    {
        AtomicOutputFile file(out.string());
        file.stream() << "new contents";
        file.commit();
    }
    CHECK(readFile(victim) == "precious");
    CHECK(readFile(out) == "new contents");
    CHECK(fs::is_regular_file(fs::symlink_status(out)));
    // A destination that is a folder: said so (not "Success"), and nothing is left beside it.
    fs::create_directory(dir / "folder");
    AtomicOutputFile file((dir / "folder").string());
    file.stream() << "x";
    CHECK_THROWS_WITH(file.commit(), Contains("'" + (dir / "folder").string() + "': it is a folder; name a file"));
    int entries = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++entries;
    CHECK(entries == 4);  // victim, out, the planted link, the folder
}

#ifdef SITE_EXE
TEST_CASE("llama-site swaps a new site in whole: a rebuild that fails leaves the old site as it was", "[hostile][outputs][site]") {
    const fs::path dir = scratch() / "swap";
    fs::remove_all(dir);
    fs::create_directories(dir / "chapters");
    std::ofstream(dir / "chapters" / "README.md") << "# Outline\n";
    std::ofstream(dir / "chapters" / "01-one.md") << "# One\n\nfirst version\n";
    const std::string site = std::string(SITE_EXE) + " --chapters " + (dir / "chapters").string() + " --trace " + runTrace().string() + " --out " +
                             (dir / "site").string() + " 2>&1";
    REQUIRE(runShell(site).exitCode == 0);
    const std::string before = readFile(dir / "site" / "01-one.html");
    CHECK_THAT(before, Contains("first version"));
    // The rebuild fails at the second chapter, after the first was rendered anew.
    std::ofstream(dir / "chapters" / "01-one.md") << "# One\n\nsecond version\n";
    std::ofstream(dir / "chapters" / "02-two.md") << "# Two\n\n![secret](/etc/passwd)\n";
    const CliRun failed = runShell(site);
    CHECK(failed.exitCode == 1);
    CHECK_THAT(failed.output, Contains("/etc/passwd"));
    CHECK(readFile(dir / "site" / "01-one.html") == before);
    CHECK_FALSE(fs::exists(dir / "site" / "02-two.html"));
    // Nothing is left beside it, and a good rebuild replaces it whole.
    fs::remove(dir / "chapters" / "02-two.md");
    REQUIRE(runShell(site).exitCode == 0);
    CHECK_THAT(readFile(dir / "site" / "01-one.html"), Contains("second version"));
    int entries = 0;
    for (const auto& entry : fs::directory_iterator(dir)) entries += entry.path().filename() != "chapters" && entry.path().filename() != "site";
    CHECK(entries == 0);
}
#endif
