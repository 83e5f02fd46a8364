// The run page's data a part at a time (issue 50, item 1): a trace read as it is written gives
// the run the whole file gives, and the parts of a run's page data, put together as the page puts
// them (viewer/web/run_page.js, RunData.apply), are the page data made at once.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "cli_run.h"
#include "io/base64.h"
#include "page/run_page_stream.h"
#include "trace/trace_tail.h"

using namespace llama;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// An 11-token prompt and 5 generated tokens, with every attention cell's inputs.
const std::string& recordedTrace() {
    static const std::string path = [] {
        const fs::path dir = fs::temp_directory_path() / ("llama_page_stream_" + std::to_string(getpid()));
        fs::create_directories(dir);
        const std::string p = (dir / "run.trace").string();
        const CliRun r = runWalkthrough("--model " ASSETS_DIR "/model -p 'And God said, Let there be light' -n 5 -q --trace-presoftmax --trace " + p);
        REQUIRE(r.exitCode == 0);
        return p;
    }();
    return path;
}

std::string fileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// The parts put together as the page does: lists appended from their "From", lens and map views
// replaced by step (and layer).
struct Assembled {
    json stages = json::array(), tokens = json::array(), steps = json::array(), attention = json::array(), masks = json::array();
    std::map<int, json> lens;
    std::map<std::pair<int, int>, json> views;
    json run;

    void add(const json& part) {
        REQUIRE(part.at("stagesFrom") == stages.size());
        for (const json& s : part.at("stages")) stages.push_back(s);
        json kept = json::array();
        for (size_t i = 0; i < part.at("tokensFrom").get<size_t>(); ++i) kept.push_back(tokens.at(i));
        for (const json& t : part.at("tokens")) kept.push_back(t);
        tokens = kept;
        json before = json::array();
        for (size_t i = 0; i < part.at("stepsFrom").get<size_t>(); ++i) before.push_back(steps.at(i));
        for (const json& s : part.at("steps")) before.push_back(s);
        steps = before;
        for (const json& a : part.at("attention")) attention.push_back(a);
        for (const json& m : part.at("masks")) masks.push_back(m);
        for (const json& l : part.at("lens")) lens[l.at("step")] = l;
        for (const json& v : part.at("mapViews")) views[{v.at("step"), v.at("layer")}] = v;
        run = part.at("run");
    }
};

}  // namespace

TEST_CASE("a trace read as it is written gives the run the whole file gives", "[trace][page]") {
    const std::string bytes = fileBytes(recordedTrace());
    const TraceRun whole = readTrace(recordedTrace());
    const std::string growing = (fs::path(recordedTrace()).parent_path() / "growing.trace").string();
    std::ofstream(growing, std::ios::binary | std::ios::trunc).flush();
    TraceTail tail(growing);
    CHECK(tail.read() == 0);  // not even the header yet
    // Written in uneven pieces, most ending inside a record: a record is read once it is whole.
    size_t written = 0, records = 0, reads = 0;
    for (size_t piece = 1000; written < bytes.size(); piece = piece * 3 / 2 + 777) {
        const size_t n = std::min(piece, bytes.size() - written);
        std::ofstream(growing, std::ios::binary | std::ios::app).write(bytes.data() + written, std::streamsize(n));
        written += n;
        records += tail.read();
        ++reads;
    }
    CHECK(reads > 5);
    CHECK(tail.ended());
    CHECK(records == whole.stages.size() + 2);  // META, the stages, END
    const TraceRun& run = tail.run();
    REQUIRE(run.stages.size() == whole.stages.size());
    for (size_t i = 0; i < run.stages.size(); ++i) {
        INFO("stage " << i);
        CHECK(run.stages[i].stage == whole.stages[i].stage);
        CHECK(run.stages[i].layer == whole.stages[i].layer);
        CHECK(run.stages[i].step == whole.stages[i].step);
        CHECK(run.stages[i].message == whole.stages[i].message);
        CHECK(run.stages[i].tensors.size() == whole.stages[i].tensors.size());
    }
    CHECK(run.generatedText == whole.generatedText);
    CHECK(run.stopReason == whole.stopReason);
    CHECK(run.generatedTokens.size() == whole.generatedTokens.size());
}

TEST_CASE("the run page's parts put together are its page data made at once", "[page]") {
    const auto run = std::make_shared<const TraceRun>(readTrace(recordedTrace()));
    page::RunPageOptions o;
    o.tracePath = recordedTrace();
    o.budgetBytes = 0;
    const json whole = page::runPageData(run, o);
    // Parts of 1, 2, 3, ... stages; each attention's arithmetic asked for once its part is sent, as
    // the live page asks when a reader opens one of its cells.
    page::RunPageStream stream(o, false);
    Assembled parts;
    size_t n = 0;
    for (size_t size = 1; stream.stagesSent() < run->stages.size(); ++size) {
        const json part = stream.next(*run, stream.stagesSent() + size);
        CHECK(part.value("reset", false) == (n == 0));
        parts.add(part);
        for (json& a : parts.attention)
            if (!a.contains("arith"))
                if (auto arith = stream.arithmetic(a.at("step"), a.at("layer"))) a["arith"] = std::move(*arith);
        ++n;
    }
    CHECK_FALSE(stream.arithmetic(99, 0));  // no such step: no arithmetic
    CHECK(n > 10);
    CHECK(parts.stages == whole.at("stages"));
    CHECK(parts.tokens == whole.at("tokens"));
    CHECK(parts.steps == whole.at("steps"));
    CHECK(parts.masks == whole.at("masks"));
    CHECK(parts.run == whole.at("run"));
    REQUIRE(parts.attention.size() == whole.at("attention").size());
    for (size_t i = 0; i < parts.attention.size(); ++i) {
        INFO("attention " << i);
        CHECK(parts.attention[i].contains("arith"));
        CHECK(parts.attention[i] == whole.at("attention")[i]);
    }
    json lens = json::array(), views = json::array();
    for (const auto& [step, l] : parts.lens) lens.push_back(l);
    for (const auto& [at, v] : parts.views) views.push_back(v);
    CHECK(lens == whole.at("lens"));
    CHECK(views == whole.at("map").at("views"));
}

TEST_CASE("the live page's parts carry their float arrays as bytes beside the JSON", "[page]") {
    const auto run = std::make_shared<const TraceRun>(readTrace(recordedTrace()));
    page::RunPageOptions o;
    o.tracePath = recordedTrace();
    page::RunPageStream base64(o, false), binary(o, true);
    const json a = base64.next(*run, run->stages.size()), b = binary.next(*run, run->stages.size());
    const std::string bytes = binary.takeBytes();
    REQUIRE(a.at("attention").size() == b.at("attention").size());
    REQUIRE(!a.at("attention").empty());
    // The same numbers: the bytes at "at" are what the base64 text decodes to.
    for (size_t i = 0; i < a.at("attention").size(); ++i) {
        const json& x = a.at("attention")[i].at("probs");
        const json& y = b.at("attention")[i].at("probs");
        CHECK(x.at("dtype") == y.at("dtype"));
        CHECK(x.at("n") == y.at("n"));
        const size_t at = y.at("at"), width = y.at("dtype") == "bf16" ? 2 : 4;
        CHECK(at % 4 == 0);
        REQUIRE(at + y.at("n").get<size_t>() * width <= bytes.size());
        CHECK(encodeBase64(bytes.data() + at, y.at("n").get<size_t>() * width) == x.at("b64").get<std::string>());
    }
}

TEST_CASE("a trace read compact holds the same values once, and the page gets the same parts from it", "[trace][page]") {
    const TraceRun whole = readTrace(recordedTrace());
    TraceTail tail(recordedTrace(), TailValues::Compact);
    tail.read();
    const TraceRun& compact = tail.run();
    REQUIRE(compact.stages.size() == whole.stages.size());
    // Every value reads back as the same float; the bundled model's 8 query heads read 2 KV heads'
    // keys, held once each (4 times fewer bytes than the repeated keys, themselves half of F32).
    size_t keys = 0, values = 0;
    for (size_t i = 0; i < whole.stages.size(); ++i)
        for (size_t j = 0; j < whole.stages[i].tensors.size(); ++j) {
            const Tensor& w = whole.stages[i].tensors[j].values;
            const Tensor& c = compact.stages[i].tensors[j].values;
            REQUIRE(w.hasData() == c.hasData());
            if (!w.hasData() || w.dtype() == DType::I32) continue;
            INFO("stage " << i << " " << whole.stages[i].tensors[j].name);
            // Token ids come as F32 (their ids, beside the tokens): kept so where they are no bfloat16.
            if (whole.stages[i].tensors[j].tokens.empty()) CHECK(c.dtype() == DType::BF16);
            REQUIRE(c.shape() == w.shape());
            bool same = true;
            for (int64_t e = 0; e < w.numel(); ++e) {
                const float x = w.data<float>()[e], y = c.floatAt(e);
                same &= std::memcmp(&x, &y, 4) == 0;
            }
            CHECK(same);
            ++values;
            if (whole.stages[i].stage == StageId::Transposes && whole.stages[i].tensors[j].name == "keys") {
                CHECK_FALSE(c.isContiguous());
                CHECK(c.repeats()[0] == 4);
                ++keys;
            }
        }
    const auto stagesOf = [&](StageId id) { return std::count_if(whole.stages.begin(), whole.stages.end(), [&](const TracedStage& s) { return s.stage == id; }); };
    CHECK(keys == size_t(stagesOf(StageId::Transposes)));  // every layer of every step
    CHECK(values > keys);
    // A value that is not a bfloat16 stays F32; blocks alike only in part are not collapsed.
    Tensor f({2, 1, 2}, DType::F32);
    f.mutableData<float>()[0] = 1.0f + 1.0f / 1024 / 1024;
    CHECK(compactTraceValues(f).dtype() == DType::F32);
    Tensor g({4, 1, 1}, DType::F32);
    for (int e = 0; e < 4; ++e) g.mutableData<float>()[e] = e < 3 ? 1.0f : 2.0f;  // 1 1 1 2: no repeat of 2 or 4
    CHECK(compactTraceValues(g).isContiguous());

    // The page's parts and every attention's arithmetic, from either: the same JSON and bytes.
    page::RunPageOptions o;
    o.tracePath = recordedTrace();
    page::RunPageStream a(o, true), b(o, true);
    CHECK(a.next(whole, whole.stages.size()) == b.next(compact, compact.stages.size()));
    CHECK(a.takeBytes() == b.takeBytes());
    size_t arithmetic = 0;
    for (const auto& s : whole.stages)
        if (s.stage == StageId::ScoresSoftmax) {
            const auto x = a.arithmetic(s.step, s.layer), y = b.arithmetic(s.step, s.layer);
            REQUIRE(x);
            CHECK(*x == *y);
            CHECK(a.takeBytes() == b.takeBytes());
            ++arithmetic;
        }
    CHECK(arithmetic == size_t(stagesOf(StageId::ScoresSoftmax)));
}
