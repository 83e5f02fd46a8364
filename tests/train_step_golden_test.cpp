// One training step of the engine against PyTorch autograd and torch.optim.AdamW on the same tiny
// model and batch (tests/fixtures/train/make_train_golden.py): the loss, every weight's gradient,
// the clipped norm and every weight after the update.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "train/adamw.h"
#include "train_fixture.h"

using namespace llama;
using namespace train_test;

namespace {

// The largest difference, and the largest golden magnitude, over two tensors' values.
struct Difference {
    double maxDiff = 0, maxGolden = 0;
};
Difference compare(const Tensor& ours, const Tensor& golden) {
    REQUIRE(ours.shape() == golden.shape());
    Difference d;
    for (int64_t i = 0; i < ours.numel(); ++i) {
        d.maxDiff = std::max(d.maxDiff, double(std::abs(ours.floatAt(i) - golden.floatAt(i))));
        d.maxGolden = std::max(d.maxGolden, double(std::abs(golden.floatAt(i))));
    }
    return d;
}

}  // namespace

TEST_CASE("training step: loss, gradients and AdamW update match PyTorch's", "[train]") {
    const nlohmann::json golden = stepJson();
    const Model model = tinyModel();
    const TorchCheckpoint step = TorchCheckpoint::load(trainFixture("step.pth"));
    Gradients grads(model);
    const double loss = trainOnBatch(model, tinyBatch(), grads);
    // F32 throughout on both sides; sums in other orders: a few units in the last place of F32.
    CHECK(loss == Approx(golden["loss"].get<double>()).epsilon(1e-6));

    for (const auto& e : grads.entries()) {
        INFO(e.name);
        const Tensor* want = step.find("grad." + e.name);
        REQUIRE(want);
        const Difference d = compare(e.gradient, *want);
        CHECK(d.maxGolden > 0);
        CHECK(d.maxDiff <= 2e-5 * d.maxGolden);
    }

    CHECK(clipGradientNorm(grads, golden["clip"].get<double>()) == Approx(golden["grad_norm"].get<double>()).epsilon(1e-5));
    AdamW adamw(grads, {.beta1 = golden["betas"][0].get<float>(), .beta2 = golden["betas"][1].get<float>(), .eps = golden["eps"].get<float>(),
                        .weightDecay = golden["weight_decay"].get<float>()});
    adamw.step(grads, golden["lr"].get<float>());
    for (const auto& e : grads.entries()) {
        INFO(e.name);
        const Tensor* want = step.find("updated." + e.name);
        REQUIRE(want);
        // The first step moves every weight by about lr (Adam's normalised step): compare with that.
        CHECK(compare(e.weight, *want).maxDiff <= 1e-4 * golden["lr"].get<double>() + 1e-6);
    }
}
