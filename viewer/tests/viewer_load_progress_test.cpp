// Loading shows how far it got, measured by the readers themselves: a trace's bytes parsed,
// record by record (trace_reader's progress), and a model's weights read in (the loader's). The
// viewer's LoadMeter carries those counts from the loading thread to the progress bar.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <unistd.h>

#include "cli_run.h"
#include "state/engine_session.h"
#include "trace/trace_reader.h"

using namespace llama;
using namespace llama::viewer;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST_CASE("a load meter's fraction comes from the reader's counts") {
    LoadMeter m{"reading trace run.trace", 0, 0};
    CHECK_FALSE(m.fraction());  // the reader has not said how much there is
    CHECK(m.describe() == "reading trace run.trace");
    m.total = 40'000'000, m.done = 10'000'000;
    REQUIRE(m.fraction());
    CHECK(*m.fraction() == Approx(0.25));
    CHECK(m.describe() == "reading trace run.trace: 10.0 of 40.0 MB");
    m.done = 50'000'000;  // never past the end
    CHECK(*m.fraction() == 1.0f);
}

TEST_CASE("loading a trace measures its bytes, record by record, and the session shows the reader's count") {
    const fs::path trace = fs::temp_directory_path() / ("viewer_load_progress_" + std::to_string(::getpid()) + ".trace");
    const CliRun cli = runWalkthrough("--model " + std::string(ASSETS_DIR) + "/model -q -n 2 -p \"In the beginning\" --trace " + trace.string());
    INFO(cli.output);
    REQUIRE(cli.exitCode == 0);
    const size_t fileBytes = fs::file_size(trace);

    std::vector<std::pair<size_t, size_t>> calls;
    const TraceRun run = readTrace(trace.string(), [&](size_t done, size_t total) { calls.emplace_back(done, total); });
    // One call before the first record and one after each: META, every stage, END.
    REQUIRE(calls.size() == run.stages.size() + 3);
    CHECK(calls.front() == std::pair<size_t, size_t>{0, fileBytes});
    CHECK(calls.back() == std::pair<size_t, size_t>{fileBytes, fileBytes});
    for (size_t i = 1; i < calls.size(); ++i) {
        INFO("call " << i);
        CHECK(calls[i].second == fileBytes);
        CHECK(calls[i].first > calls[i - 1].first);  // every record moves the bar
    }

    EngineSession session;
    ViewerSource source;
    source.trace = trace.string();
    session.load(source);
    REQUIRE(session.waitUntilSettled(60s));
    const SessionStatus st = session.status();
    REQUIRE(st.state == SessionState::Ready);
    CHECK(st.loading.total == fileBytes);
    CHECK(st.loading.done == fileBytes);
    CHECK(st.loading.what.find("reading trace") == 0);
    REQUIRE(st.loading.fraction());
    CHECK(*st.loading.fraction() == 1.0f);
    fs::remove(trace);
}

TEST_CASE("loading a model measures the weights' bytes read in") {
    EngineSession session;
    ViewerSource source;
    source.model = {ModelSource::Kind::Files, std::string(ASSETS_DIR) + "/model"};
    session.load(source);
    REQUIRE(session.waitUntilSettled(60s));
    const SessionStatus st = session.status();
    INFO(st.message);
    REQUIRE(st.state == SessionState::Ready);
    CHECK(st.loading.what == "reading weights");
    // The checkpoint file, read in page by page to its end.
    CHECK(st.loading.total == fs::file_size(std::string(ASSETS_DIR) + "/model/consolidated.00.pth"));
    CHECK(st.loading.done == st.loading.total);
}
