// One fine-tuning step's loss and gradients, scored only where the targets are not -1, against
// PyTorch autograd with ignore_index on the same tiny model and windows
// (tests/fixtures/train/make_sft_golden.py): the mean is over the scored tokens of the whole batch,
// and what no scored prediction sees gets a gradient of exactly 0.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "train_fixture.h"

using namespace llama;
using namespace train_test;

TEST_CASE("fine-tuning step: the masked loss and its gradients match PyTorch's ignore_index", "[train][sft]") {
    std::ifstream in(trainFixture("sft_step.json"));
    const nlohmann::json golden = nlohmann::json::parse(in);
    std::vector<TrainingWindow> windows;
    for (const auto& w : golden["windows"]) windows.push_back({w["inputs"].get<std::vector<int32_t>>(), w["targets"].get<std::vector<int32_t>>()});
    REQUIRE(windows[0].inputs.size() != windows[1].inputs.size());  // whole examples, not padded

    const Model model = tinyModel();
    Gradients grads(model);
    const double loss = trainOnBatch(model, windows, grads);
    CHECK(loss == Approx(golden["loss"].get<double>()).epsilon(1e-6));

    const TorchCheckpoint step = TorchCheckpoint::load(trainFixture("sft_step.pth"));
    for (const auto& e : grads.entries()) {
        INFO(e.name);
        const Tensor* want = step.find("grad." + e.name);
        REQUIRE(want);
        REQUIRE(want->shape() == e.gradient.shape());
        double maxDiff = 0, maxGolden = 0;
        for (int64_t i = 0; i < want->numel(); ++i) {
            maxDiff = std::max(maxDiff, double(std::abs(e.gradient.floatAt(i) - want->floatAt(i))));
            maxGolden = std::max(maxGolden, double(std::abs(want->floatAt(i))));
        }
        CHECK(maxGolden > 0);
        CHECK(maxDiff <= 2e-5 * maxGolden);  // the tolerance of the pretraining step's golden test
    }

    // The last token's embedding is an input only after the last scored target: exactly 0.
    const Tensor& dEmbedding = grads.entries().front().gradient;
    REQUIRE(grads.entries().front().name == "tok_embeddings.weight");
    const int64_t dim = model.args.dim, last = model.args.vocab_size - 1;
    for (int64_t i = 0; i < dim; ++i) CHECK(dEmbedding.floatAt(last * dim + i) == 0.0f);
}

TEST_CASE("fine-tuning step: a window's unscored tail changes nothing, its scored tokens weigh by count", "[train][sft]") {
    std::ifstream in(trainFixture("sft_step.json"));
    const nlohmann::json golden = nlohmann::json::parse(in);
    const Model model = tinyModel();
    TrainingWindow w{golden["windows"][1]["inputs"].get<std::vector<int32_t>>(), golden["windows"][1]["targets"].get<std::vector<int32_t>>()};
    Gradients whole(model), cut(model);
    const double wholeLoss = trainOnBatch(model, {w}, whole);
    // The same window without its unscored tail (the causal mask: earlier positions never see it).
    while (w.targets.back() == -1) w.inputs.pop_back(), w.targets.pop_back();
    const double cutLoss = trainOnBatch(model, {w}, cut);
    CHECK(wholeLoss == Approx(cutLoss).epsilon(1e-6));
    for (size_t k = 0; k < whole.entries().size(); ++k) {
        INFO(whole.entries()[k].name);
        const Tensor& a = whole.entries()[k].gradient;
        const Tensor& b = cut.entries()[k].gradient;
        double maxDiff = 0, maxA = 0;
        for (int64_t i = 0; i < a.numel(); ++i) {
            maxDiff = std::max(maxDiff, double(std::abs(a.floatAt(i) - b.floatAt(i))));
            maxA = std::max(maxA, double(std::abs(a.floatAt(i))));
        }
        CHECK(maxDiff <= 1e-6 * maxA);
    }
    // A batch with nothing scored is refused: its mean would be 0 / 0.
    std::fill(w.targets.begin(), w.targets.end(), -1);
    Gradients none(model);
    CHECK_THROWS_WITH(trainOnBatch(model, {w}, none), Catch::Contains("needs a scored token"));
}
