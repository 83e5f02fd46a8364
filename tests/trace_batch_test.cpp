// Traces of a batch of sequences (format version 3): a recorded 2-sequence batch reads back with
// each ubatch's table, the KV cells after find_slot, the mask built from the cells, a context
// shift's before and after, and each sequence's tokens, all equal to what the run had; versions
// 1 and 2 (committed fixtures, and a v2 file written here) still read; a damaged batch record
// is refused naming the record and the field.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <filesystem>
#include <fstream>
#include <set>

#include "batch/parallel_generation.h"
#include "session/model_source.h"
#include "trace/trace_reader.h"
#include "trace/trace_recorder.h"
#include "viewer/tests/trace_edit.h"
#include "bundled_model.h"

using namespace llama;
namespace fs = std::filesystem;

namespace {

// The mark's own view of each ubatch's mask, to compare the trace's with.
struct MaskCopy : StageObserver {
    std::vector<Tensor> masks;
    void onStage(const StageEvent& e) override {
        if (e.stage == StageId::KvMask) masks.push_back(e.tensors[0].tensor->clone());
    }
};

struct RecordedBatch {
    ParallelResult result;
    std::vector<Tensor> masks;
};

// Two prompts of different lengths, --parallel 2, small ubatches, greedy; with a context shift
// when `maxSeqLen` is small enough to need one.
RecordedBatch recordBatch(const fs::path& path, int maxSeqLen, int maxTokens, bool contextShift) {
    Model model = bundledModel();  // a copy sharing the weights, with a shorter context
    model.args.max_seq_len = maxSeqLen;
    const LlamaTransformer transformer(model);
    InferenceContext ctx(model.args);
    const std::vector<std::string> prompts = {"And God said", "In the beginning God created the heaven"};
    std::vector<std::vector<int32_t>> tokens;
    for (const auto& p : prompts) tokens.push_back(formatPrompt(PromptMode::Completion, "", p, ChatFormat::Llama3, false).encode(*model.tokenizer));
    const TraceBatchInfo batch{prompts, 2, 8, contextShift, 0};
    TraceRecorder recorder(path.string(), model, TraceRunInfo{"", maxTokens, {}, false, {}, "", batch}, TraceOptions{});
    MaskCopy copy;
    ctx.addObserver(&recorder);
    ctx.addObserver(&copy);
    ParallelSettings settings{.nParallel = 2, .maxTokens = maxTokens, .nUbatch = 8, .contextShift = contextShift};
    RecordedBatch r{ParallelGenerator(transformer, *model.tokenizer).generate(ctx, tokens, settings, {}), {}};
    recorder.finishBatch(r.result, prompts);
    r.masks = std::move(copy.masks);
    return r;
}

std::vector<int32_t> ids(const std::vector<TraceToken>& tokens) {
    std::vector<int32_t> out;
    for (const auto& t : tokens) out.push_back(t.id);
    return out;
}

void requireTraceError(const fs::path& p, const std::string& expected) {
    try {
        readTrace(p.string());
        FAIL("no error for " << p);
    } catch (const TraceError& e) {
        CHECK_THAT(e.what(), Catch::Contains(expected));
    }
}
}  // namespace

TEST_CASE("batch trace: each ubatch's table, cells and mask read back as the run made them", "[trace][batch]") {
    const fs::path path = fs::temp_directory_path() / "llama_batch_trace_test.trace";
    const RecordedBatch recorded = recordBatch(path, 64, 4, false);
    const TraceRun run = readTrace(path.string());
    CHECK(run.version == trace::kVersion);
    REQUIRE(run.run.batch);
    CHECK(run.run.batch->prompts.size() == 2);
    CHECK(run.run.batch->parallel == 2);

    // Each sequence's tokens, as the run returned them.
    REQUIRE(run.sequences.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
        CHECK(ids(run.sequences[i].promptTokens) == recorded.result.sequences[i].promptTokens);
        CHECK(ids(run.sequences[i].generatedTokens) == recorded.result.sequences[i].generatedTokens);
        CHECK(run.sequences[i].text == recorded.result.sequences[i].text);
    }

    size_t masks = 0;
    int ubatches = 0;
    const TracedUBatch* ubatch = nullptr;
    for (const TracedStage& s : run.stages) {
        if (s.ubatch) {
            ubatch = &*s.ubatch;
            ++ubatches;
        }
        if (s.kvSlot) {
            REQUIRE(ubatch);
            const TracedKvSlot& k = *s.kvSlot;
            // find_slot wrote the ubatch's tokens into [head, head + n_tokens): the same positions and sequences.
            REQUIRE(k.nTokens == ubatch->nTokens);
            for (int i = 0; i < k.nTokens; ++i) {
                const TracedCell& c = k.cells[size_t(k.head + i)];
                CHECK(c.pos == ubatch->tokens[size_t(i)].pos);
                for (int seq : ubatch->tokens[size_t(i)].seqIds) CHECK(std::count(c.seqIds.begin(), c.seqIds.end(), seq) == 1);
            }
            CHECK(k.nKV == int(k.cells.size()));
        }
        if (s.stage == StageId::KvMask) {
            // The mask from the cells: token i sees cell j when they share a sequence and pos(j) <= pos(i).
            const TracedTensor* mask = s.tensor("mask");
            REQUIRE(mask);
            REQUIRE(mask->hasValues());
            REQUIRE(masks < recorded.masks.size());
            const Tensor& made = recorded.masks[masks++];
            REQUIRE(mask->shape == made.shape());
            const TracedKvSlot* slot = nullptr;
            for (const TracedStage& t : run.stages)
                if (t.kvSlot && t.step == s.step) slot = &*t.kvSlot;
            REQUIRE(slot);
            REQUIRE(ubatch);
            for (int64_t i = 0; i < mask->shape[0]; ++i)
                for (int64_t j = 0; j < mask->shape[1]; ++j) {
                    const TracedBatchToken& tok = ubatch->tokens[size_t(i)];
                    const TracedCell& cell = slot->cells[size_t(j)];
                    bool shares = false;
                    for (int seq : tok.seqIds) shares |= std::count(cell.seqIds.begin(), cell.seqIds.end(), seq) > 0;
                    const bool sees = !cell.free() && shares && cell.pos <= tok.pos;
                    CHECK(std::isinf(mask->values.floatAt(i * mask->shape[1] + j)) == !sees);
                    CHECK(mask->values.floatAt(i * mask->shape[1] + j) == made.floatAt(i * mask->shape[1] + j));
                }
        }
    }
    CHECK(masks == recorded.masks.size());
    CHECK(ubatches > 2);
    fs::remove(path);
}

TEST_CASE("batch trace: a context shift's cells before and after", "[trace][batch][shift]") {
    const fs::path path = fs::temp_directory_path() / "llama_batch_trace_shift.trace";
    recordBatch(path, 48, 30, true);
    const TraceRun run = readTrace(path.string());
    const TracedContextShift* shift = nullptr;
    for (const TracedStage& s : run.stages)
        if (s.contextShift) shift = &*s.contextShift;
    REQUIRE(shift);
    REQUIRE(shift->nDiscard > 0);
    // The shifted sequence's positions after the shift: [nKeep, nKeep + nDiscard) gone, the rest moved back by nDiscard.
    std::multiset<int> before, after, expected;
    for (const TracedCell& c : shift->before)
        if (std::count(c.seqIds.begin(), c.seqIds.end(), shift->seq)) before.insert(c.pos);
    for (const TracedCell& c : shift->after)
        if (std::count(c.seqIds.begin(), c.seqIds.end(), shift->seq)) after.insert(c.pos);
    for (int p : before)
        if (p < shift->nKeep) expected.insert(p);
        else if (p >= shift->nKeep + shift->nDiscard) expected.insert(p - shift->nDiscard);
    CHECK(after == expected);
    CHECK(after.size() + size_t(shift->nDiscard) == before.size());
    fs::remove(path);
}

TEST_CASE("batch trace: versions 1 and 2 still read, as runs of one sequence", "[trace][batch][migration]") {
    // Committed traces written by earlier builds (tests/fixtures/trace/README.md): version 1 and version 2.
    for (const char* fixture : {"/trace/version1.trace", "/trace/version2.trace"}) {
        const TraceRun run = readTrace(std::string(TEST_FIXTURES_DIR) + fixture);
        CHECK(run.version == (std::string(fixture).find('1') != std::string::npos ? 1u : 2u));
        CHECK_FALSE(run.run.batch);
        CHECK(run.sequences.empty());
        CHECK_FALSE(run.generatedTokens.empty());
    }
    // A version 2 file whose records carry batch fields is refused: those came with version 3.
    const fs::path path = fs::temp_directory_path() / "llama_batch_trace_v2.trace";
    recordBatch(path, 64, 2, false);
    auto trace = test::EditableTrace::read(path.string());
    trace.header[8] = 2;
    trace.write(path.string());
    requireTraceError(path, "field 'batch': a version 2 trace records one sequence; batches came in version 3");
    fs::remove(path);
}

TEST_CASE("batch trace: a damaged batch record is refused with the record and field named", "[trace][batch][hostile]") {
    const fs::path good = fs::temp_directory_path() / "llama_batch_trace_good.trace";
    const fs::path bad = fs::temp_directory_path() / "llama_batch_trace_bad.trace";
    recordBatch(good, 64, 2, false);
    // Step 1: the prompts' first ubatch (eight of their nine tokens, --ubatch 8; one wants logits) and its cells.
    auto damage = [&](const std::string& stage, const std::function<void(nlohmann::json&)>& edit, const std::string& expected) {
        auto trace = test::EditableTrace::read(good.string());
        const size_t i = trace.find(stage, 1);
        edit(trace.records[i].json);
        trace.write(bad.string());
        requireTraceError(bad, fmt::format("record {} (STAG)", i));
        requireTraceError(bad, expected);
    };
    damage("ubatch", [](nlohmann::json& j) { j["batch"]["tokens"][1]["pos"] = 70000; },
           "field 'batch.tokens[1].pos' is 70000: expected a whole number from 0 to 63");
    damage("ubatch", [](nlohmann::json& j) { j["batch"]["nTokens"] = 1; }, "8 tokens listed: expected nTokens = 1");
    damage("ubatch", [](nlohmann::json& j) { j["batch"]["nOutputs"] = 5; }, "nOutputs is 5 but 1 of the tokens want their logits");
    damage("ubatch", [](nlohmann::json& j) { j["batch"]["tokens"][0]["seqIds"] = nlohmann::json::array(); }, "a token belongs to no sequence");
    damage("kv_slot", [](nlohmann::json& j) { j["batch"]["cells"][0]["seqIds"] = nlohmann::json::array(); },
           "field 'batch.cells[0]': a used cell belongs to no sequence");
    damage("kv_slot", [](nlohmann::json& j) { j["batch"]["used"] = 0; }, "used is 0 but");
    damage("kv_slot", [](nlohmann::json& j) { j["batch"].erase("head"); }, "field 'batch.head' is missing");
    damage("kv_mask", [](nlohmann::json& j) { j["batch"] = nlohmann::json::object(); }, "field 'batch' belongs to the stages ubatch, kv_slot");
    // END without its sequences.
    auto trace = test::EditableTrace::read(good.string());
    trace.end().json.erase("sequences");
    trace.write(bad.string());
    requireTraceError(bad, "field 'sequences' is missing");
    fs::remove(good);
    fs::remove(bad);
}
