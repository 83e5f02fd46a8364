// One training step of the engine against PyTorch autograd and torch.optim.AdamW on the same tiny
// model and batch (tests/fixtures/train/make_train_golden.py): the loss, every weight's gradient,
// the clipped norm and every weight after the update.
#include "train_golden_checks.h"

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
