// Every trace the program can write reads back (issue 46 item 3): one of each kind, written by the
// CLI at the limits of its settings (a context filled to --max-seq-len, many sequences in small
// ubatches, context shifts past --max-seq-len, every draft layer but one, a patch grid over
// prompts of different lengths), is read by every reader: the engine's reader, `diff`,
// `export-html`, the viewer's loader (and its replay, for a run) and the course site.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "state/engine_session.h"
#include "trace/patch_trace.h"
#ifdef LLAMA_HAVE_SITE
#include "page/course_site.h"
#endif

using namespace llama;
using namespace llama::viewer;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {
struct TraceKind {
    const char* name;
    const char* args;  // before --model and --trace
    bool patch = false;
};

// The prompt of a single run is 10 tokens: 6 more fill a context of 16.
const TraceKind kKinds[] = {
    {"single", "-n 6 --max-seq-len 16 --trace-presoftmax --trace-max-positions 16 -q"},
    {"batch", "batch -p a -p 'And the LORD' -p 'In the beginning God' -p x -p 'Moses said' -p The --system 'In the' --parallel 4 --ubatch 3 "
              "--max-seq-len 64 -n 8 -q"},
    {"batch with shift", "batch -p 'And the LORD spake' -p 'In the' -p 'And God said' --parallel 2 --ubatch 4 --max-seq-len 24 -n 40 "
                         "--context-shift --keep 2 -q"},
    {"speculative", "--draft-layers 7 --draft-max 16 -n 20 --max-seq-len 32 --trace-presoftmax -q"},
    {"patch", "patch --clean 'And Moses went unto Aaron. And Aaron said unto' --corrupt 'Then Joseph went unto Aaron. And Aaron said unto him' "
              "--answer ' Moses' --align end --site attention",
     true},
};

fs::path roundTripScratch() {
    const fs::path dir = fs::temp_directory_path() / fmt::format("llama_trace_round_trip_{}", ::getpid());
    fs::create_directories(dir);
    return dir;
}
}  // namespace

TEST_CASE("every kind of trace the program writes is read by every reader", "[trace][hostile]") {
    const fs::path dir = roundTripScratch();
    for (const TraceKind& kind : kKinds) {
        SECTION(kind.name) {
            const std::string trace = (dir / "run.trace").string();
            const CliRun written = runWalkthrough(fmt::format("{} --model {}/model --trace {}", kind.args, ASSETS_DIR, trace));
            INFO(written.output);
            REQUIRE(written.exitCode == 0);

            // The engine's reader (what every other reader calls).
            if (kind.patch) REQUIRE_NOTHROW(readPatchTrace(trace));
            else REQUIRE_NOTHROW(readTrace(trace));

            // diff: 0, the runs alike, or 2, a patch trace's two runs differ; 1 would be a refusal.
            const CliRun diff = runWalkthrough(fmt::format("diff {} {}", trace, trace));
            INFO(diff.output);
            CHECK(diff.exitCode == (kind.patch ? 2 : 0));

            const std::string page = (dir / "run.html").string();
            const CliRun exported = runWalkthrough(fmt::format("export-html {} --out {}", trace, page));
            INFO(exported.output);
            CHECK(exported.exitCode == 0);
            CHECK(fs::file_size(page) > 0);

            EngineSession viewer;
            ViewerSource source;
            source.trace = trace;
            viewer.load(source);
            REQUIRE(viewer.waitUntilSettled(60s));
            INFO(viewer.status().message);
            REQUIRE(viewer.status().state == SessionState::Ready);
            if (!kind.patch) {  // the replay: every record through the viewer's panels' state
                viewer.start(viewer.settings(), StepController::Mode::Continue, false);
                REQUIRE(viewer.waitUntilSettled(120s));
                INFO(viewer.status().message);
                CHECK(viewer.status().state == SessionState::Finished);
            }

#ifdef LLAMA_HAVE_SITE
            const fs::path chapters = dir / "chapters";
            fs::create_directories(chapters);
            std::ofstream(chapters / "README.md") << "# Outline\n\n[one](01-one.md)\n";
            std::ofstream(chapters / "01-one.md") << "# One\n";
            const auto files = page::buildCourseSite({.chaptersDir = chapters.string(), .tracePath = trace, .outDir = (dir / "site").string()});
            CHECK(std::find(files.begin(), files.end(), "run.html") != files.end());
#endif
        }
    }
    fs::remove_all(dir);
}
