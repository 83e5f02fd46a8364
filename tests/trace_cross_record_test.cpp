// The readers check a trace's records against each other (trace/trace_consistency.h), and a mask's
// values and a patch grid's two tokens: real traces the CLI wrote, each edited by hand to break one
// rule, are refused naming the file, the record and what was expected.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <unistd.h>

#include "cli_run.h"
#include "trace/patch_trace.h"
#include "trace/trace_reader.h"
#include "viewer/tests/trace_edit.h"

using namespace llama;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {
const std::string kModel = std::string(ASSETS_DIR) + "/model";

fs::path recordScratch(const std::string& name) { return fs::temp_directory_path() / fmt::format("llama_cross_record_{}_{}.trace", ::getpid(), name); }

fs::path record(const std::string& name, const std::string& args) {
    const fs::path path = recordScratch(name);
    const CliRun r = runWalkthrough(args + " --model " + kModel + " --trace " + path.string());
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    return path;
}

// `good` with one edit, read by `read`: refused with every one of `expected` in the message.
void requireRefused(const fs::path& good, const std::function<void(test::EditableTrace&)>& edit, const std::vector<std::string>& expected,
                    const std::function<void(const std::string&)>& read = [](const std::string& p) { readTrace(p); }) {
    auto trace = test::EditableTrace::read(good.string());
    edit(trace);
    const fs::path bad = recordScratch("bad");
    trace.write(bad.string());
    try {
        read(bad.string());
        FAIL("no error");
    } catch (const TraceError& e) {
        CHECK_THAT(e.what(), Contains("'" + bad.string() + "': record"));
        for (const std::string& part : expected) CHECK_THAT(e.what(), Contains(part));
    }
    fs::remove(bad);
}
}  // namespace

TEST_CASE("cross-record checks: a batch's END, sequence ids and context shifts must agree with META", "[trace][hostile][batch]") {
    const fs::path good = record("batch", "batch -p 'And the LORD spake' -p 'In the beginning' --parallel 2 --max-seq-len 24 -n 30 --context-shift -q");
    REQUIRE_NOTHROW(readTrace(good.string()));
    const size_t end = test::EditableTrace::read(good.string()).records.size() - 1;
    const std::string endRecord = fmt::format("record {} (END)", end);
    requireRefused(good, [](auto& t) { t.end().json["sequences"].erase(1); },
                   {endRecord, "field 'sequences' lists 1 sequences: expected 2, one per prompt of META's 'batch.prompts'"});
    requireRefused(good, [](auto& t) { t.end().json["sequences"][1]["prompt"] = "In the end"; },
                   {endRecord, "field 'sequences[1].prompt' is not META's 'batch.prompts[1]'"});
    requireRefused(good, [](auto& t) { t.end().json["sequences"][0]["contextShifts"] = 0; },
                   {endRecord, "the context_shift records before END"});
    requireRefused(good, [](auto& t) { t.records[t.find("ubatch")].json["batch"]["tokens"][0]["seqIds"] = {3}; },
                   {"(STAG ubatch, step 0)", "field 'batch.tokens[0]' names sequence 3: META's batch of 2 prompts with --parallel 2 has sequences 0 to 2"});
    requireRefused(good, [](auto& t) { t.meta().json["batch"]["contextShift"] = false; },
                   {"(STAG context_shift", "a context shift in a batch run without it"});
    // Steps never go back: the second pass's kv_slot record numbered as the prefill's.
    requireRefused(good, [](auto& t) { t.records[t.find("ubatch", 1) + 1].json["step"] = 0; },
                   {"(STAG kv_slot, step 0)", "step 0 comes after step 1"});
    fs::remove(good);
}

TEST_CASE("cross-record checks: a run's steps fit END's tokens, and a mask holds 0 and -inf only", "[trace][hostile]") {
    const fs::path good = record("single", "-n 4 -q");
    requireRefused(good, [](auto& t) { t.records[t.records.size() - 2].json["step"] = 40; },
                   {"(END)", "it lists 14 tokens, but record", "is step 40: every step decodes at least one token"});
    // Element 1 of the prefill's mask (row 0, column 1: -inf, causal) becomes 0.5 in bfloat16.
    requireRefused(good,
                   [](auto& t) {
                       auto& r = t.records[t.find("mask")];
                       const size_t at = r.json["tensors"][0]["values"]["offset"].template get<size_t>() + 2;
                       const uint16_t half = 0x3F00;
                       std::memcpy(r.data.data() + at, &half, 2);
                   },
                   {"(STAG)", "tensor 'mask' holds 0.5 at row 0, column 1: expected 0 or -inf"});
    fs::remove(good);
}

TEST_CASE("cross-record checks: a patch grid's answer and wrong tokens differ", "[trace][hostile][patch]") {
    const fs::path good = record("patch", "patch --clean 'And Moses went unto Aaron. And Aaron said unto' --corrupt 'And Joseph went unto Aaron. "
                                          "And Aaron said unto' --answer ' Moses' --wrong ' Joseph'");
    requireRefused(good, [](auto& t) { t.records[0].json["wrong"] = t.records[0].json["answer"]; },
                   {"record 0 (PTCH)", "fields 'answer' and 'wrong' are both token", "expected two tokens"},
                   [](const std::string& p) { readPatchTrace(p); });
    fs::remove(good);
}
