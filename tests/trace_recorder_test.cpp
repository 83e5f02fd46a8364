// Traces: a recorded run reads back with its stages, values and metadata; bad files fail clearly.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <filesystem>
#include <fstream>

#include "generate/generator.h"
#include "model/synthetic.h"
#include "session/session.h"
#include "tensor/bfloat16.h"
#include "trace/trace_format.h"
#include "trace/trace_json.h"
#include "trace/trace_reader.h"
#include "trace/trace_recorder.h"
#include "trace/trace_tail.h"

using namespace llama;
namespace fs = std::filesystem;

namespace {
// Keeps a clone of the scores at one layer's softmax, to compare the trace with.
struct ScoresCopy : StageObserver {
    int layer;
    std::vector<Tensor> scores;
    explicit ScoresCopy(int l) : layer(l) {}
    void onStage(const StageEvent& e) override {
        if (e.stage == StageId::ScoresSoftmax && e.layer == layer) scores.push_back(e.tensors[0].tensor->clone());
    }
};

struct Recorded {
    GenerationResult result;
    std::vector<Tensor> layer1Scores;
};

// BOS + "hi" on the tiny synthetic model: a 3-token prefill, then 3 decode steps (greedy).
Recorded record(const fs::path& path, const TraceOptions& options, const SamplingSettings& sampling = {}) {
    Model model = makeSyntheticModel("tiny", 11, false);
    LlamaTransformer transformer(model);
    InferenceContext ctx(model.args);
    LogitLens lens(transformer);
    TraceRecorder recorder(path.string(), model, TraceRunInfo{"hi", 4, sampling, false}, options, &lens);
    ScoresCopy copy(1);
    ctx.addObserver(&recorder);
    ctx.addObserver(&copy);
    Sampler sampler(sampling);
    Recorded r{Generator(transformer, *model.tokenizer).generate(ctx, "<|begin_of_text|>hi", 4, sampler, {}), {}};
    recorder.finish(r.result);
    r.layer1Scores = copy.scores;
    return r;
}

fs::path tempTrace(const std::string& name) { return fs::temp_directory_path() / ("llama_trace_test_" + name + ".trace"); }

void requireRecorderError(const fs::path& p, const std::string& expected) {
    try {
        readTrace(p.string());
        FAIL("no error for " << p);
    } catch (const TraceError& e) {
        INFO(e.what());
        CHECK(std::string(e.what()).find(expected) != std::string::npos);
    }
}
}  // namespace

TEST_CASE("trace: a recorded run reads back", "[trace]") {
    const fs::path path = tempTrace("roundtrip");
    Recorded rec = record(path, TraceOptions{});
    TraceRun run = readTrace(path.string());

    CHECK(run.version == trace::kVersion);
    CHECK(run.args.dim == 64);
    CHECK(run.args.n_layers == 2);
    CHECK(run.run.prompt == "hi");
    CHECK(run.stopReason == describe(rec.result.stopReason));
    REQUIRE(run.promptTokens.size() == 3);
    CHECK(run.promptTokens[0].special);  // BOS
    CHECK(run.promptTokens[1].piece == "h");
    REQUIRE(run.generatedTokens.size() == rec.result.generatedTokens.size());
    CHECK(run.generatedText == rec.result.text);
    REQUIRE_FALSE(run.stages.empty());
    CHECK(run.stages.front().stage == StageId::Tokenize);
    CHECK(run.stages.back().stage == StageId::Sample);

    // Every tensor has its shape and a summary; only the viewer's tensors carry values.
    const TracedStage* qkv = nullptr;
    std::vector<const TracedStage*> softmax, samples;
    for (const auto& s : run.stages) {
        if (s.stage == StageId::QKV && !qkv) qkv = &s;
        if (s.stage == StageId::ScoresSoftmax && s.layer == 1) softmax.push_back(&s);
        if (s.stage == StageId::Sample) samples.push_back(&s);
    }
    REQUIRE(qkv);
    const TracedTensor* xq = qkv->tensor("xq");
    REQUIRE(xq);
    CHECK(xq->shape == Shape{3, 64});
    CHECK(xq->dtype == DType::BF16);
    CHECK(xq->stats);
    CHECK_FALSE(xq->hasValues());

    // The attention scores come back exactly (they were bfloat16 to begin with).
    REQUIRE(softmax.size() == rec.layer1Scores.size());
    for (size_t i = 0; i < softmax.size(); ++i) {
        const TracedTensor* s = softmax[i]->tensor("scores");
        REQUIRE(s->hasValues());
        REQUIRE(s->shape == rec.layer1Scores[i].shape());
        for (int64_t k = 0; k < s->values.numel(); ++k) REQUIRE(s->values.floatAt(k) == rec.layer1Scores[i].floatAt(k));
    }
    CHECK(softmax[0]->tensor("scores")->shape == Shape{4, 3, 3});

    // The mask keeps its -inf; the top tokens start with the greedy choice.
    const TracedStage& mask = run.stages[5];
    REQUIRE(mask.stage == StageId::Mask);
    CHECK(std::isinf(mask.tensor("mask")->values.floatAt(1)));
    REQUIRE(samples.size() == 4);
    REQUIRE(samples[0]->top.size() == 10);
    CHECK(samples[0]->top[0].probability >= samples[0]->top[1].probability);
    CHECK(samples[0]->top[0].id == int32_t(samples[0]->tensor("next")->values.floatAt(0)));
    CHECK(samples[0]->tensor("next")->tokens.size() == 1);

    // KV cache: 3 prompt positions after the prefill, one more per decode step.
    std::vector<int> fill = run.cacheFill(run.stages.size() - 1);
    CHECK(fill == std::vector<int>{6, 6});
    fs::remove(path);
}

// The tiny model has 4 query heads over 2 KV heads: the keys the scores are made of repeat each
// KV head's twice. The file holds them once; every reader gets them repeated, as the engine had them.
TEST_CASE("trace: keys repeated for the query heads of a KV head are stored once and read back repeated", "[trace]") {
    struct KeysCopy : StageObserver {
        std::vector<Tensor> keys;
        void onStage(const StageEvent& e) override {
            if (e.stage == StageId::Transposes && e.layer == 0) keys.push_back(e.tensors[1].tensor->clone());
        }
    };
    const fs::path path = tempTrace("repeat");
    {
        Model model = makeSyntheticModel("tiny", 11, false);
        REQUIRE(model.args.n_heads == 2 * model.args.n_kv_heads);
        LlamaTransformer transformer(model);
        InferenceContext ctx(model.args);
        TraceOptions options;
        options.preSoftmax = true;
        TraceRecorder recorder(path.string(), model, TraceRunInfo{"hi", 3, {}, false}, options);
        KeysCopy copy;
        ctx.addObserver(&recorder);
        ctx.addObserver(&copy);
        Sampler sampler({});
        const GenerationResult result = Generator(transformer, *model.tokenizer).generate(ctx, "<|begin_of_text|>hi", 3, sampler, {});
        recorder.finish(result);

        const TraceRun run = readTrace(path.string());
        std::vector<const TracedTensor*> keys;
        for (const TracedStage& s : run.stages)
            if (s.stage == StageId::Transposes && s.layer == 0) keys.push_back(s.tensor("keys"));
        REQUIRE(keys.size() == copy.keys.size());
        REQUIRE(keys.size() == 3);  // the prefill and two decode steps
        for (size_t i = 0; i < keys.size(); ++i) {
            REQUIRE(keys[i]->hasValues());
            REQUIRE(keys[i]->shape == copy.keys[i].shape());
            CHECK(keys[i]->shape[0] == 4);
            for (int64_t k = 0; k < copy.keys[i].numel(); ++k)
                REQUIRE(keys[i]->values.floatAt(k) == BFloat16::toFloat(BFloat16::fromFloat(copy.keys[i].floatAt(k))));
        }
    }
    // In the file: half of the keys' values, said so.
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = bytes.find(R"("name":"keys")", bytes.find(R"("stage":"transposes")"));
    REQUIRE(at != std::string::npos);
    const nlohmann::json head = nlohmann::json::parse(bytes.substr(at - 1, bytes.find('}', bytes.find(R"("values")", at)) - at + 2) + "}");
    const int64_t numel = head["shape"][0].get<int64_t>() * head["shape"][1].get<int64_t>() * head["shape"][2].get<int64_t>();
    CHECK(head["values"]["repeat"] == 2);
    CHECK(head["values"]["bytes"] == numel / 2 * 2);

    // What a reader refuses: a repeat in a file of a version before repeats, one that does not
    // divide the heads (same length: "repeat":2 -> 3), named with the field.
    const fs::path bad = tempTrace("repeat-bad");
    auto write = [&](const std::string& b) { std::ofstream(bad, std::ios::binary | std::ios::trunc) << b; };
    std::string older = bytes;
    older[8] = 4;
    write(older);
    requireRecorderError(bad, "a version 4 trace stores every head's values; stored repeats came in version 5");
    std::string three = bytes;
    const size_t repeatAt = three.find(R"("repeat":2)", at);
    three[repeatAt + 9] = '3';
    write(three);
    requireRecorderError(bad, "3 does not divide the 4 heads of shape");
    fs::remove(path);
    fs::remove(bad);
}

TEST_CASE("trace: caps leave values out", "[trace]") {
    const fs::path path = tempTrace("caps");
    TraceOptions o;
    o.attentionLayers = parseLayerSelection("1", 2);
    o.maxPositions = 4;  // the prefill (3 positions) and the first decode step (4) only
    o.preSoftmax = true;
    record(path, o);
    TraceRun run = readTrace(path.string());
    int stored = 0, skipped = 0;
    for (const auto& s : run.stages)
        if (s.stage == StageId::ScoresSoftmax || s.stage == StageId::ScoresMask) {
            bool has = s.tensor("scores")->hasValues();
            CHECK(has == (s.layer == 0 && s.tensor("scores")->shape.back() <= 4));
            (has ? stored : skipped)++;
        }
    CHECK(stored == 4);  // 2 stages x 2 steps in layer 1 (0-based 0)
    CHECK(skipped == 12);
    fs::remove(path);
}

TEST_CASE("trace: layer selections", "[trace]") {
    CHECK_FALSE(parseLayerSelection("all", 4));
    CHECK(parseLayerSelection("none", 4)->empty());
    CHECK(*parseLayerSelection("1,3-4", 4) == std::set<int>{0, 2, 3});
    for (const char* bad : {"0", "5", "2-1", "a", "1,", "1-"}) CHECK_THROWS_AS(parseLayerSelection(bad, 4), std::invalid_argument);
}

TEST_CASE("trace: bad files give clear errors", "[trace]") {
    const fs::path good = tempTrace("good");
    record(good, TraceOptions{});
    std::ifstream in(good, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto write = [](const fs::path& p, const std::string& b) { std::ofstream(p, std::ios::binary) << b; };

    requireRecorderError(tempTrace("missing-nonexistent"), "cannot open trace");
    const fs::path bad = tempTrace("bad");
    write(bad, "PK\x03\x04 not a trace");
    requireRecorderError(bad, "is not a llama-walkthrough trace");
    write(bad, "");
    requireRecorderError(bad, "is not a llama-walkthrough trace");

    std::string newer = bytes;
    newer[8] = 99;
    write(bad, newer);
    requireRecorderError(bad, fmt::format("is trace format version 99; this build reads version {}", trace::kVersion));

    write(bad, bytes.substr(0, bytes.size() / 2));
    requireRecorderError(bad, "is truncated: record");
    write(bad, bytes.substr(0, 10));
    requireRecorderError(bad, "ends inside the file header");

    // Cut exactly before the END record: every record whole, the end missing.
    const size_t endAt = bytes.rfind("END ");
    write(bad, bytes.substr(0, endAt));
    requireRecorderError(bad, "without its END record");

    std::string corrupt = bytes;
    corrupt[12 + 16] = '!';  // the META record's JSON
    write(bad, corrupt);
    requireRecorderError(bad, "record 0 (META) is malformed");
    fs::remove(good);
    fs::remove(bad);
}

TEST_CASE("trace: messages keep quotes, control characters and broken UTF-8 readable", "[trace]") {
    const fs::path path = tempTrace("escapes");
    Model model = makeSyntheticModel("tiny", 1, true);
    {
        TraceRecorder recorder(path.string(), model, TraceRunInfo{}, TraceOptions{});
        Tensor mask = Tensor::shapeOnly({2, 2}, DType::BF16);
        recorder.onStage(StageEvent{.stage = StageId::Mask, .message = "say \"hi\" \\ now\n\tthen \xE2\x82 half", .tensors = {{"mask", &mask}}});
        recorder.finish(GenerationResult{});
    }
    TraceRun run = readTrace(path.string());
    REQUIRE(run.stages.size() == 1);
    CHECK(run.stages[0].message == "say \"hi\" \\ now\n\tthen \xEF\xBF\xBD half");
    CHECK(run.stages[0].tensor("mask")->shape == Shape{2, 2});
    CHECK_FALSE(run.stages[0].tensor("mask")->stats);
    fs::remove(path);
}

// The writers' read-back check (trace_readback.h) reads a trace to check it, not to show it: a
// record at a time, every stage's values decoded, then dropped, so it holds one record's bytes and
// values, and it refuses what readTrace refuses.
TEST_CASE("trace: read only to be checked, a run keeps every stage's tensors and summaries but no values", "[trace]") {
    const fs::path path = tempTrace("checked");
    record(path, TraceOptions{});
    const TraceRun kept = readTrace(path.string());
    TraceTail tail(path.string(), TailValues::Drop, "run.trace");
    tail.read();
    tail.requireWhole();
    const TraceRun& checked = tail.run();
    REQUIRE(checked.stages.size() == kept.stages.size());
    size_t valuesKept = 0;
    for (size_t i = 0; i < kept.stages.size(); ++i) {
        INFO("stage " << i);
        REQUIRE(checked.stages[i].tensors.size() == kept.stages[i].tensors.size());
        for (size_t j = 0; j < kept.stages[i].tensors.size(); ++j) {
            const TracedTensor &a = kept.stages[i].tensors[j], &b = checked.stages[i].tensors[j];
            CHECK(b.name == a.name);
            CHECK(b.shape == a.shape);
            CHECK(b.stats.has_value() == a.stats.has_value());
            CHECK_FALSE(b.hasValues());
            valuesKept += a.hasValues();
        }
    }
    CHECK(valuesKept > 0);  // the run stored values: there was something to drop
    CHECK(checked.generatedText == kept.generatedText);

    // What it refuses, named as the file it stands for, as readTrace words it.
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const fs::path bad = tempTrace("checked-bad");
    const auto refuses = [&](const std::string& b, const std::string& expected) {
        std::ofstream(bad, std::ios::binary | std::ios::trunc) << b;
        TraceTail t(bad.string(), TailValues::Drop, "run.trace");
        try {
            t.read();
            t.requireWhole();
            FAIL("no error for " << expected);
        } catch (const TraceError& e) {
            INFO(e.what());
            CHECK(std::string(e.what()).find("'run.trace'") != std::string::npos);
            CHECK(std::string(e.what()).find(expected) != std::string::npos);
        }
    };
    refuses(bytes.substr(0, 10), "ends inside the file header");
    refuses(bytes.substr(0, bytes.rfind("END ")), "without its END record");
    refuses(bytes.substr(0, bytes.size() - 3), "without its END record");
    refuses(bytes + "xyz", "3 unexpected bytes after the END record");
    std::string corrupt = bytes;
    corrupt[12 + 16] = '!';  // the META record's JSON
    refuses(corrupt, "record 0 (META) is malformed");
    fs::remove(path);
    fs::remove(bad);
}

TEST_CASE("trace: a message's JSON string reads back whatever byte is special and wherever it falls", "[trace]") {
    // appendString appends runs of plain bytes whole: each special byte at each offset of a
    // 40-byte line (a run's start, middle and end) must be escaped, read back by nlohmann::json
    // as the line it was.
    for (const std::string& special : std::vector<std::string>{"\"", "\\", "\n", "\t", std::string(1, '\x01'), "\x7f", "\xC3\xA9", "\xE2\x82\xAC"}) {
        for (size_t at = 0; at < 40; ++at) {
            std::string line(40, 'a');
            line.replace(at, 1, special);
            std::string j;
            trace::appendString(j, line);
            INFO("special byte(s) at offset " << at << ": " << j);
            CHECK(nlohmann::json::parse(j).get<std::string>() == line);
        }
    }
}

TEST_CASE("trace: a repeated tensor summary is written as the text it would be formatted to", "[trace]") {
    // StatsText copies the text of one of its last 8 summaries on a bit-for-bit repeat: every
    // append must equal appendStats, a summary that differs in any bit (0 against -0, a NaN, one
    // of the first values, the -inf count) must not be taken for a repeat, and the ninth distinct
    // summary pushes out the first.
    auto plain = [](const TensorStats& s) {
        std::string j;
        trace::appendStats(j, s);
        return j;
    };
    const TensorStats base{-2.3125f, 2.90625f, -0.05872643f, 0, {0.91015625f, 0.34375f, -1.2109375f, -1.515625f}};
    std::vector<TensorStats> variants(9, base);
    variants[1].min = -0.0f;
    variants[2].min = 0.0f;
    variants[3].mean = std::nanf("");
    variants[4].max = INFINITY;
    variants[5].negInf = 3;
    variants[6].first[3] = std::nextafter(variants[6].first[3], 0.0f);
    variants[7].first.pop_back();
    variants[8].first.clear();
    trace::StatsText cached;
    for (int round = 0; round < 3; ++round)
        for (size_t i = 0; i < variants.size(); ++i) {
            std::string j;
            cached.append(j, variants[i]);
            INFO("round " << round << ", variant " << i);
            CHECK(j == plain(variants[i]));
        }
    std::string j;
    cached.append(j, variants[2]);
    CHECK(j.find(R"("min":0,)") != std::string::npos);  // 0, not the -0 before it
    j.clear();
    cached.append(j, variants[1]);
    CHECK(j.find(R"("min":-0,)") != std::string::npos);
}

TEST_CASE("trace: a write that fails (a full disk) ends the run with the file named, from the writer thread", "[trace]") {
    Model model = makeSyntheticModel("tiny", 1, true);
    // Records are written on the recorder's own thread: the failure reaches the engine at a
    // later stage or at finish(), never silently.
    auto recordMany = [&] {
        TraceRecorder recorder("/dev/full", model, TraceRunInfo{}, TraceOptions{});
        Tensor mask = Tensor::shapeOnly({2, 2}, DType::BF16);
        for (int i = 0; i < 100000; ++i)
            recorder.onStage(StageEvent{.stage = StageId::Mask, .step = i, .message = "a line long enough to fill a buffer soon", .tensors = {{"mask", &mask}}});
        recorder.finish(GenerationResult{});
    };
    REQUIRE_THROWS_WITH(recordMany(), Catch::Contains("writing trace '/dev/full' failed"));
}

TEST_CASE("trace: records written on the writer thread keep the engine's order, all of them", "[trace]") {
    const fs::path path = tempTrace("order");
    Model model = makeSyntheticModel("tiny", 1, true);
    constexpr int kRecords = 5000;  // many batches
    {
        TraceRecorder recorder(path.string(), model, TraceRunInfo{}, TraceOptions{});
        Tensor scores({4, 1, 3}, DType::F32);  // the tiny model's 4 heads
        float* p = scores.mutableData<float>();
        for (int i = 0; i < 12; ++i) p[i] = i == 4 ? 0.5f : 0.25f;
        for (int i = 0; i < kRecords; ++i)
            recorder.onStage(StageEvent{.stage = StageId::ScoresSoftmax, .layer = 0, .step = i / 8, .message = fmt::format("record {}", i),
                                        .tensors = {{"scores", &scores}}});
        // A token for each step: no step decodes none.
        recorder.finish(GenerationResult{.promptTokens = std::vector<int32_t>(kRecords / 8, 1)});
        CHECK(recorder.bytesWritten() == fs::file_size(path));
    }
    TraceRun run = readTrace(path.string());
    REQUIRE(run.stages.size() == size_t(kRecords));
    for (int i = 0; i < kRecords; i += 997) {
        CHECK(run.stages[size_t(i)].step == i / 8);
        CHECK(run.stages[size_t(i)].message == fmt::format("record {}", i));
    }
    CHECK(run.stages.back().tensor("scores")->stats->max == 0.5f);
    fs::remove(path);
}

TEST_CASE("trace: flushed at a held stage, the run so far reads back as the finished trace begins", "[trace]") {
    const fs::path path = tempTrace("so_far");
    Model model = makeSyntheticModel("tiny", 1, true);
    constexpr int kRecords = 300, kHeldAt = 150;  // past two of the writer's batches: some written, some queued
    Tensor scores({4, 1, 3}, DType::F32);
    scores.mutableData<float>()[0] = 1.0f;
    {
        TraceRecorder recorder(path.string(), model, TraceRunInfo{}, TraceOptions{});
        for (int i = 0; i < kRecords; ++i) {
            recorder.onStage(StageEvent{.stage = StageId::ScoresSoftmax, .layer = 0, .step = i, .message = fmt::format("record {}", i),
                                        .tensors = {{"scores", &scores}}});
            if (i + 1 != kHeldAt) continue;
            const std::string writing = recorder.flush();
            CHECK(writing != path.string());  // not in place until finish()
            CHECK_FALSE(fs::exists(path));
            const TraceRun soFar = readTraceSoFar(writing);
            REQUIRE(soFar.stages.size() == size_t(kHeldAt));
            CHECK(soFar.stages.back().message == fmt::format("record {}", kHeldAt - 1));
            CHECK(soFar.generatedTokens.empty());
            CHECK_THROWS_AS(readTrace(writing), TraceError);  // a whole trace needs its END
        }
        recorder.finish(GenerationResult{.promptTokens = std::vector<int32_t>(kRecords, 1)});
    }
    const TraceRun run = readTrace(path.string());
    REQUIRE(run.stages.size() == size_t(kRecords));
    CHECK(run.stages[kHeldAt - 1].message == fmt::format("record {}", kHeldAt - 1));
    fs::remove(path);
}

namespace {
// A trace's records, to edit one field and frame them again (docs/trace-format.md).
struct Record {
    std::string kind;
    nlohmann::json json;
    std::string data;
};

std::vector<Record> splitRecords(const std::string& bytes) {
    std::vector<Record> out;
    for (size_t pos = 12; pos < bytes.size();) {
        uint32_t jsonBytes;
        uint64_t dataBytes;
        std::memcpy(&jsonBytes, bytes.data() + pos + 4, 4);
        std::memcpy(&dataBytes, bytes.data() + pos + 8, 8);
        out.push_back({bytes.substr(pos, 4), nlohmann::json::parse(bytes.substr(pos + 16, jsonBytes)),
                       bytes.substr(pos + 16 + jsonBytes, dataBytes)});
        pos += 16 + jsonBytes + dataBytes;
    }
    return out;
}

std::string joinRecords(const std::string& header, const std::vector<Record>& records) {
    std::string out = header.substr(0, 12);
    for (const Record& r : records) {
        const std::string json = r.json.dump();
        const uint32_t jsonBytes = uint32_t(json.size());
        const uint64_t dataBytes = r.data.size();
        out += r.kind;
        out.append(reinterpret_cast<const char*>(&jsonBytes), 4).append(reinterpret_cast<const char*>(&dataBytes), 8);
        out += json + r.data;
    }
    return out;
}
// A good trace's records, written to `out` with a change: hostile variants of it.
struct RecordEditor {
    std::string bytes;
    std::vector<Record> records;
    fs::path out;
    RecordEditor(const fs::path& good, fs::path bad) : out(std::move(bad)) {
        std::ifstream in(good, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        records = splitRecords(bytes);
    }
    template <class Change> void operator()(Change change) const {
        std::vector<Record> copy = records;
        change(copy);
        std::ofstream(out, std::ios::binary) << joinRecords(bytes, copy);
    }
};
}  // namespace

TEST_CASE("trace: what the viewer indexes with is validated, naming record and field", "[trace][hostile]") {
    const fs::path good = tempTrace("hostile_good"), bad = tempTrace("hostile_bad");
    record(good, TraceOptions{});
    const RecordEditor edited(good, bad);
    const std::vector<Record>& records = edited.records;
    // The first stage inside a block, and the first stage with a mask.
    auto stageIndex = [&](const char* key) {
        for (size_t i = 0; i < records.size(); ++i)
            if (records[i].kind == "STAG" && records[i].json["stage"] == key) return i;
        FAIL("no stage " << key);
        return size_t(0);
    };

    edited([](auto& r) { r[0].json["model"]["args"]["n_heads"] = 0; });  // the viewer divided by it
    requireRecorderError(bad, "record 0 (META): model.args: 'n_heads' is 0");
    edited([](auto& r) { r[0].json["model"]["args"]["n_layers"] = 2000000000; });
    requireRecorderError(bad, "'n_layers' is 2000000000: expected 1 to 1024");

    // The tokens row holds at most the context length, its ids from the start (the replay pads it).
    const size_t tokensRow = stageIndex("tokens_tensor");
    auto tokensShape = [&](int64_t n) {
        edited([&](auto& r) {
            r[tokensRow].json["tensors"][0].erase("values");
            r[tokensRow].json["tensors"][0]["shape"] = {n};
        });
    };
    tokensShape(int64_t(1) << 20);
    requireRecorderError(bad, fmt::format("record {} (STAG): tensor 'tokens' of shape [1048576] lists 3 tokens: expected a row of at most",
                                       tokensRow));
    tokensShape(1);
    requireRecorderError(bad, "tensor 'tokens' of shape [1] lists 3 tokens");
    edited([&](auto& r) {
        r[tokensRow].json["tensors"][0].erase("values");
        r[tokensRow].json["tensors"][0]["shape"] = nlohmann::json::array();
    });
    requireRecorderError(bad, "tensor 'tokens' has shape []: expected [positions]");

    const size_t mask = stageIndex("mask");
    edited([&](auto& r) { r[mask].json["tensors"][0]["shape"] = {4294967296LL, 4294967296LL}; });
    requireRecorderError(bad, fmt::format("record {} (STAG): field 'tensors[0].shape' is [4294967296,4294967296]: expected a shape of at most "
                                       "68719476736 elements",
                                       mask));
    edited([&](auto& r) { r[mask].json["tensors"][0]["shape"] = {3}; });
    requireRecorderError(bad, "tensor 'mask' has shape [3]: expected [rows, positions]");
    edited([&](auto& r) { r[mask].json["message"] = std::string(2 << 20, 'x'); });
    requireRecorderError(bad, "field 'message' has 2097152 bytes: expected a string of at most 65536");

    const size_t block = stageIndex("attention_norm");
    edited([&](auto& r) { r[block].json["layer"] = 999; });
    requireRecorderError(bad, fmt::format("record {} (STAG): field 'layer' is 999: expected a layer from 0 to 1", block));
    edited([&](auto& r) { r[block].json["layer"] = 1.5; });
    requireRecorderError(bad, "field 'layer' is 1.5: expected a layer from 0 to 1");

    // The what-if switches: layers and heads within the model, flags as booleans.
    edited([](auto& r) { r[0].json["whatIf"]["skipLayers"] = {5}; });
    requireRecorderError(bad, "record 0 (META): field 'whatIf.skipLayers[0]' is 5: expected a layer from 0 to 1");
    edited([](auto& r) { r[0].json["whatIf"]["ablateHeads"] = {{0, 99}}; });
    requireRecorderError(bad, "record 0 (META): field 'whatIf.ablateHeads[0][1]' is 99: expected a head from 0 to 3");
    edited([](auto& r) { r[0].json["whatIf"]["ablateHeads"] = {7}; });
    requireRecorderError(bad, "record 0 (META): field 'whatIf.ablateHeads[0]' is 7: expected a [layer, head] pair");
    edited([](auto& r) { r[0].json["whatIf"]["noMask"] = "yes"; });
    requireRecorderError(bad, "record 0 (META): field 'whatIf.noMask' is \"yes\": expected true or false");
    edited([](auto& r) { r[0].json["whatIf"]["ropeTheta"] = -3; });
    requireRecorderError(bad, "whatIf: --rope-theta: a base frequency above 1, got -3");
    edited([](auto& r) { r[0].json.erase("whatIf"); });
    requireRecorderError(bad, "record 0 (META): field 'whatIf' is missing");
    // Every field named with its record, whatever JSON type stands in its place.
    edited([](auto& r) { r[0].json["whatIf"] = nullptr; });
    requireRecorderError(bad, "record 0 (META): field 'whatIf' is null: expected an object");
    edited([](auto& r) { r[0].json["whatIf"]["skipLayers"] = nlohmann::json::object(); });
    requireRecorderError(bad, "record 0 (META): field 'whatIf.skipLayers' is {}: expected an array");
    edited([](auto& r) { r[0].json["trace"]["attentionLayers"] = {"a"}; });
    requireRecorderError(bad, "record 0 (META): field 'trace.attentionLayers[0]' is \"a\": expected a layer from 0 to 1");
    edited([](auto& r) { r[0].json["trace"]["attentionLayers"] = {99999999999LL, -5}; });
    requireRecorderError(bad, "record 0 (META): field 'trace.attentionLayers[0]' is 99999999999: expected a layer from 0 to 1");
    edited([](auto& r) { r[0].json["trace"]["attentionLayers"] = 7; });
    requireRecorderError(bad, "record 0 (META): field 'trace.attentionLayers' is 7: expected \"all\" or an array of layers");
    edited([](auto& r) { r[0].json["run"]["prompt"] = 5; });
    requireRecorderError(bad, "record 0 (META): field 'run.prompt' is 5: expected a string of at most 1048576 bytes");

    // The logit lens: one list per row of the block's output, ids in the vocabulary.
    const size_t lens = stageIndex("ffn_residual");
    REQUIRE(records[lens].json.contains("lens"));
    edited([&](auto& r) { r[lens].json["lens"].erase(0); });
    requireRecorderError(bad, fmt::format("record {} (STAG): field 'lens' belongs to ffn_residual stages, one list", lens));
    edited([&](auto& r) { r[lens].json["lens"][0][0]["id"] = 1 << 30; });
    requireRecorderError(bad, fmt::format("record {} (STAG): field 'lens[0][0].id' is 1073741824: expected a whole number from 0 to {}", lens,
                                       records[0].json["model"]["args"]["vocab_size"].get<int>() - 1));
    edited([&](auto& r) { r[lens].json["lens"][0][0]["probability"] = 2; });
    requireRecorderError(bad, "field 'lens[0][0].probability' is 2: expected a probability in [0, 1]");
    edited([&](auto& r) { r[block].json["lens"] = r[lens].json["lens"]; });
    requireRecorderError(bad, fmt::format("record {} (STAG): field 'lens' belongs to ffn_residual stages", block));
    fs::remove(good);
    fs::remove(bad);
}

TEST_CASE("trace: with repetition penalties, the top tokens before and after them, validated", "[trace][penalties]") {
    const fs::path path = tempTrace("penalties"), bad = tempTrace("penalties_bad");
    // The bundled model, whose greedy output repeats itself: repeated tokens are among the likely ones.
    const SamplingSettings sampling{.repeatPenalty = 3.0f, .repeatLastN = 8, .frequencyPenalty = 0.5f, .presencePenalty = 0.25f};
    Session session;
    session.load({ModelSource::Kind::Files, std::string(ASSETS_DIR) + "/model"});
    session.settings().sampling = sampling;
    session.settings().maxTokens = 16;
    TraceRecorder recorder(path.string(), *session.model(), TraceRunInfo{session.settings().prompt, 16, sampling, false}, {});
    session.addObserver(&recorder);
    const Recorded rec{session.run(), {}};
    recorder.finish(rec.result);
    const TraceRun run = readTrace(path.string());
    CHECK(run.run.sampling.repeatPenalty == 3.0f);
    CHECK(run.run.sampling.repeatLastN == 8);
    CHECK(run.run.sampling.frequencyPenalty == 0.5f);
    CHECK(run.run.sampling.presencePenalty == 0.25f);
    int samples = 0, moved = 0;
    size_t generated = 0;
    for (const auto& s : run.stages) {
        if (s.stage != StageId::Sample) continue;
        ++samples;
        REQUIRE(s.top.size() == 10);
        REQUIRE(s.topPenalized.size() == 10);
        // Greedy: the token chosen is the most likely after the penalties.
        if (generated < rec.result.generatedTokens.size()) CHECK(s.topPenalized[0].id == rec.result.generatedTokens[generated++]);
        for (size_t i = 0; i < s.top.size(); ++i) moved += s.top[i].id != s.topPenalized[i].id || s.top[i].logit != s.topPenalized[i].logit;
    }
    CHECK(samples == int(rec.result.generatedTokens.size()));
    CHECK(moved > 0);  // the penalties changed what the sampler saw

    // A run without penalties records no topPenalized, and older traces without the keys read.
    record(bad, TraceOptions{});
    for (const auto& s : readTrace(bad.string()).stages) CHECK(s.topPenalized.empty());

    const RecordEditor edited(path, bad);
    const std::vector<Record>& records = edited.records;
    edited([](auto& r) {
        for (const char* k : {"repeatPenalty", "repeatLastN", "frequencyPenalty", "presencePenalty"}) r[0].json["run"].erase(k);
    });
    CHECK(readTrace(bad.string()).run.sampling.repeatPenalty == 1.0f);  // a trace from before the penalties
    edited([](auto& r) { r[0].json["run"]["minP"] = 0.25; });
    CHECK(readTrace(bad.string()).run.sampling.minP == 0.25f);
    edited([](auto& r) { r[0].json["run"].erase("minP"); });
    CHECK(readTrace(bad.string()).run.sampling.minP == 0.0f);  // a trace from before min-p: off
    edited([](auto& r) { r[0].json["run"]["minP"] = 3; });
    requireRecorderError(bad, "record 0 (META): run: minP 3 must be in [0, 1]");
    edited([](auto& r) { r[0].json["run"].erase("presencePenalty"); });
    requireRecorderError(bad, "record 0 (META): run: the penalties repeatPenalty, repeatLastN, frequencyPenalty and presencePenalty come together");
    edited([](auto& r) { r[0].json["run"]["repeatPenalty"] = -1; });
    requireRecorderError(bad, "run: repeat penalty -1 must be in (0, 10]");
    edited([](auto& r) { r[0].json["run"]["repeatLastN"] = -5; });
    requireRecorderError(bad, "record 0 (META): field 'run.repeatLastN' is -5: expected a whole number from -1 to 2147483647");
    edited([](auto& r) { r[0].json["run"]["temperature"] = "nan"; });
    requireRecorderError(bad, "record 0 (META): field 'run.temperature' is \"nan\": expected a number");
    size_t sample = 0;
    while (records[sample].kind != "STAG" || records[sample].json["stage"] != "sample") ++sample;
    edited([&](auto& r) { r[sample].json["topPenalized"][0]["id"] = 100000; });
    requireRecorderError(bad, fmt::format("record {} (STAG): field 'topPenalized[0].id' is 100000: expected a whole number from 0 to {}", sample,
                                       records[0].json["model"]["args"]["vocab_size"].get<int>() - 1));
    edited([&](auto& r) { r[sample].json["topPenalized"][0]["probability"] = 1.5; });
    requireRecorderError(bad, fmt::format("record {} (STAG): field 'topPenalized[0].probability' is 1.5: expected a probability in [0, 1]", sample));
    edited([&](auto& r) { r[sample].json.erase("top"); });
    requireRecorderError(bad, "topPenalized without top");
    fs::remove(path);
    fs::remove(bad);
}
