#pragma once
// Checked reading of a trace record's JSON, shared by every reader of trace files (the run's
// records, a batch's, a patch trace's grid). A TraceField is a value with its path from the record,
// so that every error names the whole field, the value found and what was expected:
//
//   const TraceField record{j};                          // the record's object
//   record["batch"]["tokens"][1]["pos"].integer(0, 63);
//   // TraceError "field 'batch.tokens[1].pos' is 70000: expected a whole number from 0 to 63"
//
// The readers put the file and record in front ("'run.trace': record 14 (STAG): field ...").
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/model_args.h"
#include "trace/trace_reader.h"

namespace llama {

// Text a page shows whole (a prompt, the generated text) and a token's piece.
constexpr size_t kMaxTraceTextBytes = 1024 * 1024;
constexpr size_t kMaxTracePieceBytes = 1024;

class TraceField {
public:
    // A record's whole object (its fields are named by their keys alone), or a part of it named `path`.
    explicit TraceField(const nlohmann::json& value, std::string path = "") : value_(value), path_(std::move(path)) {}

    const nlohmann::json& value() const { return value_; }
    const std::string& path() const { return path_; }

    // A member that must be there ("field 'batch.head' is missing"); this value must be an object.
    TraceField operator[](std::string_view key) const;
    // A member that may be absent or null: nullopt then.
    std::optional<TraceField> optional(std::string_view key) const;
    // A member that must be there but may be null: nullopt when null.
    std::optional<TraceField> nullable(std::string_view key) const;
    bool has(std::string_view key) const { return value_.is_object() && value_.contains(key); }
    // An element of an array: "batch.cells[3]".
    TraceField operator[](size_t index) const;

    // An array of at most maxSize entries; its size.
    size_t list(size_t maxSize = SIZE_MAX) const;
    // A whole number in [lo, hi]; `what` names it in the error ("a layer from 0 to 1").
    int integer(int lo, int hi, std::string_view what = "a whole number") const;
    int64_t integer64(int64_t lo, int64_t hi) const;
    bool boolean() const;
    std::string text(size_t maxBytes) const;
    // One of a few strings ("bf16" or "i32").
    std::string oneOf(std::initializer_list<std::string_view> choices) const;
    // Any JSON number; a finite one.
    double number() const;
    double finite() const;
    // A float as trace_json.h's jsonNumber writes it: a number, or "inf", "-inf" or "nan".
    float traceFloat() const;

    // "field 'PATH' is VALUE: expected WHAT".
    [[noreturn]] void unexpected(std::string_view what) const;
    // "field 'PATH': WHAT", for what the field must agree with.
    [[noreturn]] void fail(std::string_view what) const;
    void expect(bool ok, std::string_view what) const {
        if (!ok) fail(what);
    }

private:
    std::string name() const;  // "field 'PATH'", or "the record"
    std::string memberPath(std::string_view key) const;
    bool wholeIn(int64_t lo, int64_t hi) const;
    const nlohmann::json& value_;
    std::string path_;
};

// A token {id, piece, special}, its id in the model's vocabulary.
TraceToken readTraceToken(const TraceField& token, const ModelArgs& args);
// A list of at most `maxCount` tokens (a run's tokens fit its context; `limit` says why else).
std::vector<TraceToken> readTraceTokens(const TraceField& list, const ModelArgs& args, int64_t maxCount, std::string_view limit = {});

}  // namespace llama
