// One training step of the engine against PyTorch autograd and torch.optim.AdamW on the same tiny
// model and batch (tests/fixtures/train/make_train_golden.py): the loss, every weight's gradient,
// the clipped norm and every weight after the update.
#include "train_golden_checks.h"

#include "ml/bf16_products.h"

using namespace llama;
using namespace train_test;

TEST_CASE("training step: loss, gradients and AdamW update match PyTorch's", "[train]") {
    const nlohmann::json golden = stepJson();
    const Model model = tinyModel();
    const TorchCheckpoint step = TorchCheckpoint::load(trainFixture("step.pth"));
    Gradients grads(model);
    const double loss = trainOnBatch(model, tinyBatch(), grads);
    // F32 throughout on both sides; sums in other orders: a few units in the last place of F32.
    CHECK(loss == Approx(golden["loss"].get<double>()).epsilon(1e-6));

    checkGradientsAndUpdate(grads, step, golden);
}

// Mixed precision (ml/bf16_products.h) against the same F32 golden: the linear layers' operands
// rounded to BF16 (8 significant bits, a relative error of up to 2^-9 each) move the loss and the
// gradients by a few parts in a thousand of their size (measured: every gradient within 0.8% of its
// largest value), and no more. The loss must differ from the
// engine's own F32 step's: the products did run in BF16.
TEST_CASE("training step with BF16 products: within BF16's rounding of PyTorch's F32 step", "[train]") {
    const nlohmann::json golden = stepJson();
    const Model model = tinyModel();
    const TorchCheckpoint step = TorchCheckpoint::load(trainFixture("step.pth"));
    Gradients grads(model);
    double loss = 0;
    {
        const ml::BF16Products bf16;
        loss = trainOnBatch(model, tinyBatch(), grads);
    }
    Gradients f32Grads(model);
    CHECK(loss != trainOnBatch(model, tinyBatch(), f32Grads));
    CHECK(loss == Approx(golden["loss"].get<double>()).epsilon(2e-3));
    for (const auto& e : grads.entries()) {
        INFO(e.name);
        const Tensor* want = step.find("grad." + e.name);
        REQUIRE(want);
        const Difference d = compare(e.gradient, *want);
        CHECK(d.maxDiff <= 2e-2 * d.maxGolden);
    }
}
