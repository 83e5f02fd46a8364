#pragma once
// The stage marks' types: one struct per stage (marks::FfnGate, ...) whose members are the
// fields stages.def declares for it, so a mark reads
//     ctx.stage(marks::FfnGate{.x = x, .ffn_gate = ffn_gate, .h = h});
// and a misspelt, missing or out-of-order field does not compile. The wording and the recorded
// tensors are checked against the declared fields at compile time too (the static_asserts
// below). fieldsOf() turns a mark into the event's named fields, only when someone observes.
#include <atomic>
#include <concepts>
#include <functional>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stages/stage_event.h"

namespace llama::marks {

// A number or a text field: it has no default, so a mark that leaves it out does not compile.
template <typename T> struct Required {
    template <typename U>
        requires std::convertible_to<U, T>
    Required(U&& v) : value(std::forward<U>(v)) {}
    T value;
};

// A text field, made only when someone observes the mark: a string literal (free), or a function
// that makes the text, called by fieldsOf. A ready std::string does not compile: building it is
// the cost an unobserved run must not pay, and the type, not each call site, keeps it so. Like
// the tensor fields, it refers to its function: a mark lives only in the ctx.stage(...) call.
class LazyText {
public:
    LazyText(const char* literal) : literal_(literal) {}
    template <typename F>
        requires std::invocable<const F&> && std::convertible_to<std::invoke_result_t<const F&>, std::string>
    LazyText(const F& make)
        : make_(&make), call_([](const void* f) { return std::string((*static_cast<const F*>(f))()); }) {}

    std::string make() const {
        if (literal_) return literal_;
        made_.fetch_add(1, std::memory_order_relaxed);
        return call_(make_);
    }
    // Texts made by functions so far, in the whole process (the test that an unobserved run makes none).
    static uint64_t madeSoFar() { return made_.load(); }

private:
    const char* literal_ = nullptr;
    const void* make_ = nullptr;
    std::string (*call_)(const void*) = nullptr;
    static inline std::atomic<uint64_t> made_{0};
};

#define TENSOR(name) const Tensor& name;
#define OPTIONAL_TENSOR(name) const std::optional<Tensor>& name;
#define NUMBER(name) Required<int64_t> name;
#define TEXT(name) LazyText name;
#define STAGE(id, key, number, title, chapter, place, records, fields, wording, skipped) \
    struct id {                                                                       \
        static constexpr StageId kStage = StageId::id;                                \
        fields                                                                        \
    };
#include "stages/stages.def"
#undef STAGE
#undef TENSOR
#undef OPTIONAL_TENSOR
#undef NUMBER
#undef TEXT

#define TENSOR(name) {#name, m.name},
#define OPTIONAL_TENSOR(name) {#name, m.name},
#define NUMBER(name) {#name, m.name.value},
#define TEXT(name) {#name, texts ? m.name.make() : std::string()},
#define STAGE(id, key, number, title, chapter, place, records, fields, wording, skipped) \
    inline std::vector<StageField> fieldsOf(const id& m, [[maybe_unused]] bool texts = true) { return {fields}; }
#include "stages/stages.def"
#undef STAGE
#undef TENSOR
#undef OPTIONAL_TENSOR
#undef NUMBER
#undef TEXT

namespace check {
// True when `name` is one of `list`'s entries, each followed by a comma ("x,h,").
consteval bool listed(std::string_view name, std::string_view list) {
    for (size_t begin = 0; begin < list.size();) {
        const size_t end = list.find(',', begin);
        if (list.substr(begin, end - begin) == name) return true;
        begin = end + 1;
    }
    return false;
}

// Every {name} (or {name:spec}) in a wording is a declared field; "{{" is a literal brace.
consteval bool wordingDeclared(std::string_view wording, std::string_view fields) {
    for (size_t i = 0; i < wording.size(); ++i) {
        if (wording[i] != '{') continue;
        if (i + 1 < wording.size() && wording[i + 1] == '{') {
            ++i;
            continue;
        }
        const size_t end = wording.find_first_of(":}", i);
        if (end == std::string_view::npos || !listed(wording.substr(i + 1, end - i - 1), fields)) return false;
    }
    return true;
}

// Every recorded name ("xq,xk") is a declared tensor.
consteval bool recordsDeclared(std::string_view records, std::string_view tensors) {
    for (size_t begin = 0; begin < records.size();) {
        size_t end = records.find(',', begin);
        if (end == std::string_view::npos) end = records.size();
        if (!listed(records.substr(begin, end - begin), tensors)) return false;
        begin = end + 1;
    }
    return true;
}

// The fields every event has (makeStageEvent and InferenceContext::stage add them).
#define LLAMA_EVERY_STAGE_FIELDS "layer,layerNumber,step,startPos,N_Layers,N_Heads,N_KVHeads,N_Rep,HeadDim,"
#define TENSOR(name) #name ","
#define OPTIONAL_TENSOR(name) #name ","
#define NUMBER(name) #name ","
#define TEXT(name) #name ","
#define STAGE(id, key, number, title, chapter, place, records, fields, wording, skipped)                                            \
    static_assert(wordingDeclared(wording, fields LLAMA_EVERY_STAGE_FIELDS), "stage " key ": the wording names a field its mark does not declare"); \
    static_assert(wordingDeclared(skipped, fields LLAMA_EVERY_STAGE_FIELDS), "stage " key ": the skipped wording names a field its mark does not declare");
#include "stages/stages.def"
#undef STAGE
#undef NUMBER
#undef TEXT
#define NUMBER(name)
#define TEXT(name)
#define STAGE(id, key, number, title, chapter, place, records, fields, wording, skipped) \
    static_assert(recordsDeclared(records, "" fields), "stage " key ": it records a tensor its mark does not declare");
#include "stages/stages.def"
#undef STAGE
#undef TENSOR
#undef OPTIONAL_TENSOR
#undef NUMBER
#undef TEXT
#undef LLAMA_EVERY_STAGE_FIELDS
}  // namespace check

}  // namespace llama::marks
