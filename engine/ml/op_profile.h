#pragma once
// Time spent per kind of operation, for `bench --profile`: where a token's time goes.
//
// Every op function starts with one line, `const OpScope profile(OpKind::MatMul);`. While
// profiling is off (the default) a scope costs a relaxed atomic load and a predictable branch
// (and the test of its own flag on leaving), no clock read. While it is on, the outermost scope
// on a thread reads steady_clock at both ends and adds the time and one call to its kind's
// atomic totals. Ops running inside another op count under the outer kind: RoPE
// (applyRotaryEmbeddings) includes its conversions, complex views and complex multiply, so the
// table shows the step the walkthrough names rather than its pieces.
// Q, K and V run as three concurrent tasks, so the summed op time can exceed the elapsed time.
#include <array>
#include <atomic>
#include <cstdint>

namespace llama::ml {

enum class OpKind {
    LinearTransformation,
    MatMul,
    Add,
    MultiplyElementwise,
    DivToScalar,
    Softmax,
    Silu,
    RMSNorm,
    RoPE,       // applyRotaryEmbeddings, with the ops inside it
    RepeatKV,   // attentionRepeatKV
    Transpose,
    RepeatInterleave,
    Contiguous,  // a strided view copied into row-major order (for Reshape, or for observers)
    Reshape,
    Slice,
    SetSlice,
    ViewAsComplex64WithReshape,
    ViewAsFloat32WithReshape,
    ToFloat32,
    ToBFloat16,
    Fwd_Get_Rows,
    Full,
    TriangularUpper,
    Argmax,
    // The backward pass's (backward_ops.h).
    LinearBackward,  // LinearBackwardInput and LinearBackwardWeights
    CrossEntropy,
    SoftmaxBackward,
    RMSNormBackward,
    SiluBackward,
    SumRepeated,
    Accumulate,
    Count
};
inline constexpr size_t kOpKindCount = size_t(OpKind::Count);

const char* opKindName(OpKind kind);

struct OpTotals {
    int64_t nanoseconds = 0;
    int64_t calls = 0;
};
using OpProfile = std::array<OpTotals, kOpKindCount>;  // indexed by OpKind

void setOpProfiling(bool on);
void resetOpProfile();
OpProfile opProfileSnapshot();  // the totals since the last reset

namespace detail {
extern std::atomic<bool> opProfilingOn;
}

class OpScope {
public:
    explicit OpScope(OpKind kind) {
        if (detail::opProfilingOn.load(std::memory_order_relaxed)) [[unlikely]]
            begin(kind);
    }
    ~OpScope() {
        if (active_) [[unlikely]]
            end();
    }
    OpScope(const OpScope&) = delete;
    OpScope& operator=(const OpScope&) = delete;

private:
    void begin(OpKind kind);
    void end();

    // Only active_ is set when profiling is off; begin() sets the rest.
    bool active_ = false;
    bool outermost_;
    OpKind kind_;
    int64_t startNs_;
};

}  // namespace llama::ml
