#include "ml/op_profile.h"

#include <chrono>

namespace llama::ml {

namespace {

struct AtomicTotals {
    std::atomic<int64_t> nanoseconds{0};
    std::atomic<int64_t> calls{0};
};
std::array<AtomicTotals, kOpKindCount> totals;

// Scopes open on this thread while profiling: only the outermost one is timed.
thread_local int openScopes = 0;

int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

namespace detail {
std::atomic<bool> opProfilingOn{false};
}

const char* opKindName(OpKind kind) {
    static constexpr std::array<const char*, kOpKindCount> names = {
        "LinearTransformation", "MatMul", "Add", "MultiplyElementwise", "DivToScalar", "Softmax", "Silu", "RMSNorm",
        "RoPE (applyRotaryEmbeddings)", "attentionRepeatKV", "Transpose", "RepeatInterleave", "Contiguous", "Reshape", "Slice", "SetSlice",
        "ViewAsComplex64WithReshape", "ViewAsFloat32WithReshape", "ToFloat32", "ToBFloat16", "Fwd_Get_Rows", "Full",
        "TriangularUpper", "Argmax", "LinearBackward",
        "CrossEntropy", "SoftmaxBackward", "RMSNormBackward", "SiluBackward", "SumRepeated (repeatKV backward)",
        "AccumulateInto",
    };
    static_assert(names.back() != nullptr, "every OpKind has a name");
    return names.at(size_t(kind));
}

void setOpProfiling(bool on) { detail::opProfilingOn.store(on, std::memory_order_relaxed); }

void resetOpProfile() {
    for (auto& t : totals) {
        t.nanoseconds.store(0, std::memory_order_relaxed);
        t.calls.store(0, std::memory_order_relaxed);
    }
}

OpProfile opProfileSnapshot() {
    OpProfile p;
    for (size_t k = 0; k < kOpKindCount; ++k)
        p[k] = {totals[k].nanoseconds.load(std::memory_order_relaxed), totals[k].calls.load(std::memory_order_relaxed)};
    return p;
}

void OpScope::begin(OpKind kind) {
    active_ = true;
    kind_ = kind;
    outermost_ = openScopes++ == 0;
    if (outermost_) startNs_ = nowNs();
}

void OpScope::end() {
    --openScopes;
    if (!outermost_) return;
    AtomicTotals& t = totals[size_t(kind_)];
    t.nanoseconds.fetch_add(nowNs() - startNs_, std::memory_order_relaxed);
    t.calls.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace llama::ml
