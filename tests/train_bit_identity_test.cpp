// A training step gives the same bits on every kernel path this CPU runs: the loss, every
// gradient, and every weight and AdamW moment after the update, as the generic path computes them.
// The backward pass's products go through LinearTransformation's canonical kernels and its other
// sums are plain loops in one order (ml/backward_ops.cpp), so nothing may depend on the path. The
// same holds with BF16 products (ml/bf16_products.h): on the avx512bf16 path they run on vdpbf16ps.
#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <optional>

#include "ml/bf16_products.h"
#include "ml/kernels/kernel_set.h"
#include "ml/task_launch.h"
#include "ml_test_util.h"
#include "train/adamw.h"
#include "train_fixture.h"

using namespace llama;
using namespace train_test;

namespace {

// The step's results as bytes, by name.
std::map<std::string, std::string> oneStep(bool bf16Products) {
    const Model model = tinyModel();
    Gradients grads(model);
    std::optional<ml::BF16Products> bf16;
    if (bf16Products) bf16.emplace();
    const double loss = trainOnBatch(model, tinyBatch(), grads);
    std::map<std::string, std::string> out;
    out["loss"] = std::string(reinterpret_cast<const char*>(&loss), sizeof loss);
    for (const auto& e : grads.entries())
        out["grad." + e.name] = std::string(static_cast<const char*>(e.gradient.rawData()), e.gradient.byteSize());
    clipGradientNorm(grads, 1.0);
    AdamW adamw(grads, {});
    adamw.step(grads, 1e-2f);
    for (size_t k = 0; k < grads.entries().size(); ++k) {
        const auto& e = grads.entries()[k];
        out["updated." + e.name] = std::string(static_cast<const char*>(e.weight.rawData()), e.weight.byteSize());
        out["exp_avg_sq." + e.name] = std::string(static_cast<const char*>(adamw.expAvgSq[k].rawData()), adamw.expAvgSq[k].byteSize());
    }
    return out;
}

}  // namespace

namespace {

void samePathsBits(bool bf16Products) {
    std::map<std::string, std::string> generic;
    {
        test::UsingKernels use("generic");
        generic = oneStep(bf16Products);
    }
    for (const std::string& path : ml::kernels::supportedPaths()) {
        test::UsingKernels use(path);
        const auto got = oneStep(bf16Products);
        for (const auto& [name, bytes] : generic) {
            INFO(name << " on the " << path << " path");
            CHECK(got.at(name) == bytes);
        }
    }
}

}  // namespace

TEST_CASE("Bit identity: a training step gives the same bits on every kernel path", "[bitidentity][train]") { samePathsBits(false); }

TEST_CASE("Bit identity: a training step with BF16 products gives the same bits on every kernel path", "[bitidentity][train]") {
    samePathsBits(true);
}

// Q, K and V's tasks on threads of their own ask for the same step's rounded weights at once.
TEST_CASE("Bit identity: a training step with BF16 products gives the same bits whichever way Q, K and V's tasks run",
          "[bitidentity][train][task_threads]") {
    ml::setDefaultLaunch(ml::Launch::Deferred);
    const auto deferred = oneStep(true);
    for (const ml::Launch how : {ml::Launch::NewThread, ml::Launch::KeptThreads}) {
        ml::setDefaultLaunch(how);
        const auto got = oneStep(true);
        for (const auto& [name, bytes] : deferred) {
            INFO(name << " with the tasks run " << ml::launchName(how));
            CHECK(got.at(name) == bytes);
        }
    }
    ml::setDefaultLaunch(std::nullopt);
}
