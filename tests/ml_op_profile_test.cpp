// The op profiler behind `bench --profile`: ops are counted under their kind only while it is on.
#include <catch2/catch.hpp>

#include <thread>

#include "ml/op_profile.h"
#include "ml/ops.h"
#include "ml_test_util.h"
#include "model/llama_attention.h"
#include "model/rope.h"

using namespace llama;
using ml::OpKind;

namespace {
const ml::OpTotals& totalsOf(const ml::OpProfile& p, OpKind kind) { return p[size_t(kind)]; }

int64_t allCalls(const ml::OpProfile& p) {
    int64_t n = 0;
    for (const auto& t : p) n += t.calls;
    return n;
}

// Profiling is process-wide: every test leaves it off and empty.
struct ProfilingOn {
    ProfilingOn() {
        ml::resetOpProfile();
        ml::setOpProfiling(true);
    }
    ~ProfilingOn() {
        ml::setOpProfiling(false);
        ml::resetOpProfile();
    }
};
}  // namespace

TEST_CASE("op profile: a profiled LinearTransformation is counted under its kind, with its time", "[ml][profile]") {
    Tensor x = test::randomTensor({4, 256}, DType::BF16, 1);
    Tensor w = test::randomTensor({512, 256}, DType::BF16, 2);
    ProfilingOn on;
    ml::LinearTransformation(x, w);
    ml::LinearTransformation(x, w);
    ml::OpProfile p = ml::opProfileSnapshot();
    CHECK(totalsOf(p, OpKind::LinearTransformation).calls == 2);
    CHECK(totalsOf(p, OpKind::LinearTransformation).nanoseconds > 0);
    CHECK(allCalls(p) == 2);
    CHECK(std::string(ml::opKindName(OpKind::LinearTransformation)) == "LinearTransformation");

    ml::resetOpProfile();
    CHECK(allCalls(ml::opProfileSnapshot()) == 0);
}

TEST_CASE("op profile: nothing is counted while profiling is off", "[ml][profile]") {
    ml::resetOpProfile();
    ml::setOpProfiling(false);
    Tensor x = test::randomTensor({4, 256}, DType::BF16, 1);
    ml::LinearTransformation(x, test::randomTensor({512, 256}, DType::BF16, 2));
    ml::Silu(x);
    ml::OpProfile p = ml::opProfileSnapshot();
    CHECK(allCalls(p) == 0);
    for (const auto& t : p) CHECK(t.nanoseconds == 0);
}

TEST_CASE("op profile: ops inside RoPE count as RoPE, ops on concurrent threads all count", "[ml][profile]") {
    const int seqLen = 3, heads = 4, kvHeads = 2, headDim = 8;
    Tensor xq = test::randomTensor({seqLen, heads, headDim}, DType::BF16, 3);
    Tensor xk = test::randomTensor({seqLen, kvHeads, headDim}, DType::BF16, 4);
    Tensor freqs = precomputeFreqsCis(headDim, seqLen, 10000.0, false);
    ProfilingOn on;
    applyRotaryEmbeddings(xq, xk, freqs);
    ml::OpProfile p = ml::opProfileSnapshot();
    CHECK(totalsOf(p, OpKind::RoPE).calls == 1);
    CHECK(allCalls(p) == 1);  // its ToFloat32, complex views and MultiplyElementwise are inside it

    ml::resetOpProfile();
    auto work = [&] { attentionRepeatKV(xk, 2); };
    std::thread a(work), b(work);
    a.join();
    b.join();
    CHECK(totalsOf(ml::opProfileSnapshot(), OpKind::RepeatKV).calls == 2);
}
