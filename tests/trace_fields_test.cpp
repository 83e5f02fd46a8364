// The checked fields every trace reader shares (engine/trace/trace_fields.h): each error names the
// field's whole path from the record, the value found and what was expected.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "trace/trace_fields.h"

using namespace llama;
using Catch::Matchers::Equals;

namespace {
std::string errorOf(const std::function<void()>& read) {
    try {
        read();
    } catch (const TraceError& e) {
        return e.what();
    }
    return "no error";
}
}  // namespace

TEST_CASE("trace fields: errors name the path from the record, the value and what was expected", "[trace][fields]") {
    const nlohmann::json j = nlohmann::json::parse(R"({"batch": {"tokens": [{"pos": 3}, {"pos": 70000}], "big": 18446744073709551615,
        "name": "bf17", "flag": 1, "text": "abc", "pair": [1, 2, 3], "scale": "x", "nothing": null}})");
    const TraceField record(j);
    const TraceField batch = record["batch"];
    CHECK(batch["tokens"][0]["pos"].integer(0, 63) == 3);
    CHECK_THAT(errorOf([&] { batch["tokens"][1]["pos"].integer(0, 63); }),
               Equals("field 'batch.tokens[1].pos' is 70000: expected a whole number from 0 to 63"));
    CHECK_THAT(errorOf([&] { batch["tokens"][1]["pos"].integer(0, 63, "a position"); }),
               Equals("field 'batch.tokens[1].pos' is 70000: expected a position from 0 to 63"));
    // 2^64-1 does not wrap around to -1 and into a range that takes -1.
    CHECK_THAT(errorOf([&] { batch["big"].integer(-1, 10); }),
               Equals("field 'batch.big' is 18446744073709551615: expected a whole number from -1 to 10"));
    CHECK_THAT(errorOf([&] { batch["tokens"][2]; }), Equals("field 'batch.tokens' is [{\"pos\":3},{\"pos\":70000}]: expected an array of more than 2 entries"));
    CHECK_THAT(errorOf([&] { batch["head"]; }), Equals("field 'batch.head' is missing"));
    CHECK_THAT(errorOf([&] { batch["flag"]["x"]; }), Equals("field 'batch.flag' is 1: expected an object"));
    CHECK_THAT(errorOf([&] { batch["flag"].boolean(); }), Equals("field 'batch.flag' is 1: expected true or false"));
    CHECK_THAT(errorOf([&] { batch["name"].oneOf({"bf16", "i32"}); }), Equals("field 'batch.name' is \"bf17\": expected \"bf16\" or \"i32\""));
    CHECK_THAT(errorOf([&] { batch["text"].text(2); }), Equals("field 'batch.text' has 3 bytes: expected a string of at most 2"));
    CHECK_THAT(errorOf([&] { batch["pair"].list(2); }), Equals("field 'batch.pair' has 3 entries: expected at most 2"));
    CHECK_THAT(errorOf([&] { batch["scale"].number(); }), Equals("field 'batch.scale' is \"x\": expected a number"));
    CHECK_THAT(errorOf([&] { batch["scale"].traceFloat(); }), Equals("field 'batch.scale' is \"x\": expected a number, \"inf\", \"-inf\" or \"nan\""));
    CHECK_THAT(errorOf([&] { batch["pair"].expect(false, "a pair has two entries"); }), Equals("field 'batch.pair': a pair has two entries"));
    CHECK_THAT(errorOf([&] { TraceField(nlohmann::json(5))["x"]; }), Equals("the record is 5: expected an object"));
    // Absent or null: an optional field is not there; a nullable one must be.
    CHECK_FALSE(batch.optional("absent"));
    CHECK_FALSE(batch.optional("nothing"));
    CHECK_FALSE(batch.nullable("nothing"));
    CHECK_THAT(errorOf([&] { batch.nullable("absent"); }), Equals("field 'batch.absent' is missing"));
}

TEST_CASE("trace fields: a long value is shown by its size, not repeated", "[trace][fields]") {
    const nlohmann::json j = {{"prompt", std::string(1 << 20, 'x')}, {"layers", std::vector<int>(1000, 1)}};
    const TraceField record(j);
    CHECK_THAT(errorOf([&] { record["prompt"].integer(0, 1); }), Equals("field 'prompt' is a string of 1048576 bytes: expected a whole number from 0 to 1"));
    CHECK_THAT(errorOf([&] { record["layers"].text(10); }), Equals("field 'layers' is an array of 1000 entries: expected a string of at most 10 bytes"));
}

TEST_CASE("trace fields: a token's id lies in the vocabulary, a list of them within its count", "[trace][fields]") {
    ModelArgs args;
    args.vocab_size = 100;
    args.max_seq_len = 4;
    const nlohmann::json j = nlohmann::json::parse(R"({"tokens": [{"id": 5, "piece": "a", "special": false}, {"id": 100, "piece": "b", "special": true}]})");
    const TraceField record(j);
    const TraceToken t = readTraceToken(record["tokens"][0], args);
    CHECK(t.id == 5);
    CHECK(t.piece == "a");
    CHECK_FALSE(t.special);
    CHECK_THAT(errorOf([&] { readTraceTokens(record["tokens"], args, 4); }),
               Equals("field 'tokens[1].id' is 100: expected a whole number from 0 to 99"));
    CHECK_THAT(errorOf([&] { readTraceTokens(record["tokens"], args, 1); }),
               Equals("field 'tokens': 2 tokens listed: a run of at most 4 positions holds at most 1"));
}
