// LinearPlan (ml/linear_plan.h): the step a plan picks for a weight type, kernel path and number
// of x rows, and that the model's planned weights (LinearWeights) give the bits of a plain
// tensor's call, which plans it afresh, on every path, also when the path was switched after the
// weights were planned.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "formats/gguf/quantize.h"
#include "ml/ops.h"
#include "ml_test_util.h"

using namespace llama;
using namespace llama::ml;
using namespace llama::test;

namespace {

Tensor weightsOf(DType t, int64_t out, int64_t in, unsigned seed) {
    if (t == DType::F32 || t == DType::BF16) return randomTensor({out, in}, t, seed);
    const Tensor values = randomTensor({out, in}, DType::F32, seed, -0.1f, 0.1f);
    const std::vector<uint8_t> bytes = quantize(t, values.data<float>(), out * in);
    Tensor w({out, in}, t);
    std::memcpy(w.mutableData<uint8_t>(), bytes.data(), bytes.size());
    return w;
}

bool sameBits(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.rawData(), b.rawData(), a.byteSize()) == 0;
}

std::vector<std::string> everyPath() {
    std::vector<std::string> paths = kernels::supportedPaths();
    paths.push_back("reference");
    return paths;
}

}  // namespace

TEST_CASE("LinearPlan: BF16 weights take the decode kernel for one row and tiles for prefill", "[ml][linear][plan]") {
    for (const std::string& path : kernels::supportedPaths()) {
        UsingKernels use(path);
        const LinearPlan plan(DType::BF16, kernels::active());
        INFO(path);
        CHECK(plan.kernels == &kernels::active());
        CHECK(plan.bucket(1) == LinearPlan::OneRow);
        CHECK(plan.bucket(64) == LinearPlan::ManyRows);
        // Decode: BF16 x as stored against the weights as stored; F32 x against them.
        CHECK(plan.step(1, DType::BF16).route == LinearRoute::BF16Pair);
        CHECK(plan.step(1, DType::BF16).x == XForm::AsStored);
        CHECK(plan.step(1, DType::F32).route == LinearRoute::BF16Dots);
        // Prefill: the weights as stored in the AVX paths' and relaxed SIMD's BF16 tiles; widened
        // to F32 scratch elsewhere, and for F32 x, whose rows are padded to whole tiles.
        const bool bf16Tiles = path.rfind("avx", 0) == 0 || path == "relaxed-simd";
        CHECK(plan.step(64, DType::BF16).route == (bf16Tiles ? LinearRoute::BF16Tiles : LinearRoute::Tiles));
        CHECK(plan.step(64, DType::F32).route == LinearRoute::Tiles);
        CHECK(plan.step(64, DType::F32).x == XForm::F32Padded);
    }
    UsingKernels reference("reference");  // no kernels: F32 dot products, then F32 tiles
    const LinearPlan plan(DType::BF16, kernels::active());
    CHECK(plan.step(1, DType::BF16).route == LinearRoute::Stream);
    CHECK(plan.step(1, DType::BF16).x == XForm::F32);
    CHECK(plan.step(64, DType::BF16).route == LinearRoute::Tiles);
}

TEST_CASE("LinearPlan: quantized weights take the integer dot kernels, then panels from a vector's x rows",
          "[ml][linear][plan]") {
    for (const std::string& path : kernels::supportedPaths()) {
        UsingKernels use(path);
        const kernels::KernelSet& set = kernels::active();
        for (DType t : {DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K}) {
            const LinearPlan plan(t, set);
            INFO(path << ", " << dtypeName(t));
            if (t == DType::Q8_0) CHECK(plan.dot32 == set.dotQ8_0);
            if (t == DType::Q4_0) CHECK(plan.dot32 == set.dotQ4_0);
            if (t == DType::Q4_K) CHECK(plan.dot256 == set.dotQ4_K);
            if (t == DType::Q6_K) CHECK(plan.dot256 == set.dotQ6_K);
            // One row: a weight row per task; a few rows: a block of 16 stays in L1 for them all.
            CHECK(plan.step(1, DType::F32).route == LinearRoute::QuantizedDots);
            CHECK(plan.step(1, DType::F32).x == XForm::Quantized);
            CHECK(plan.step(1, DType::F32).rowsPerTask == 1);
            CHECK(plan.step(2, DType::BF16).route == LinearRoute::QuantizedDots);
            CHECK(plan.step(2, DType::BF16).rowsPerTask == 16);
            // From more than one vector's x rows (16 on avx512, 8 on avx2 and generic), the panels:
            // byte panels for Q8_0 and Q4_0 where the CPU has VNNI, small-value panels for all but
            // Q8_0 on relaxed SIMD.
            CHECK(plan.manyRowsFrom == 1 + (path.rfind("avx512", 0) == 0 ? 16 : path == "simd128" || path == "relaxed-simd" ? 4 : 8));
            CHECK(plan.step(plan.manyRowsFrom - 1, DType::F32).route == LinearRoute::QuantizedDots);
            const bool bytes = path.rfind("avx512", 0) == 0 && (t == DType::Q8_0 || t == DType::Q4_0);
            const bool smallValues = path == "relaxed-simd" && t != DType::Q8_0;
            const LinearStep& prefill = plan.step(plan.manyRowsFrom, DType::F32);
            CHECK(prefill.route == (bytes         ? LinearRoute::BytePanels
                                    : smallValues ? LinearRoute::SmallValuePanels
                                                  : LinearRoute::Int16Panels));
            CHECK(prefill.x == (bytes ? XForm::PackedBytes : smallValues ? XForm::PackedSigned : XForm::Packed));
        }
    }
    UsingKernels reference("reference");  // no integer kernels: rows decoded to F32
    const LinearPlan plan(DType::Q4_K, kernels::active());
    CHECK(plan.step(1, DType::F32).route == LinearRoute::Stream);
    CHECK(plan.step(64, DType::F32).route == LinearRoute::Tiles);
    CHECK(plan.dot256 == nullptr);
}

TEST_CASE("LinearPlan: planned weights give a plain tensor's bits on every path, planned on any path",
          "[ml][linear][plan][kernels]") {
    // Weights planned on each path (the model plans its own when a LlamaTransformer binds them),
    // then multiplied on each path: a plan made for another path is not used (the reference
    // path's F32 method gives other bits than the integer kernels, so using a stale integer plan
    // there would show), and the bits are those of the unplanned call. 1 to 40 rows cover every
    // bucket of every path; 39 weight rows leave partial blocks and tiles.
    const int64_t out = 39, in = 512;
    for (DType t : {DType::F32, DType::BF16, DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K}) {
        const Tensor plain = weightsOf(t, out, in, 7);
        for (const std::string& planned : everyPath()) {
            LinearWeights weights;
            {
                UsingKernels use(planned);
                weights = plain;
            }
            for (const std::string& path : everyPath()) {
                UsingKernels use(path);
                for (DType xType : {DType::F32, DType::BF16})
                    for (int64_t rows : {1, 2, 5, 16, 40}) {
                        const Tensor x = randomTensor({rows, in}, xType, unsigned(rows), -2.0f, 2.0f);
                        INFO(dtypeName(t) << " weights planned on " << planned << ", run on " << path << ", " << rows
                                          << " rows of " << dtypeName(xType));
                        REQUIRE(sameBits(LinearTransformation(x, weights), LinearTransformation(x, plain)));
                    }
            }
        }
    }
}
