// One LoRA fine-tuning step of the engine against PyTorch autograd and torch.optim.AdamW
// (tests/fixtures/train/make_lora_golden.py): the tiny model frozen, an adapter of rank 2 on all
// seven matrices of both blocks; the loss, A's and B's gradients, the clipped norm and A and B
// after the update. The model's own weights get no gradient and do not move.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "train/adamw.h"
#include "train_fixture.h"

using namespace llama;
using namespace train_test;

namespace {

double largestDifference(const Tensor& ours, const Tensor& golden, double* largestGolden = nullptr) {
    REQUIRE(ours.shape() == golden.shape());
    double diff = 0, biggest = 0;
    for (int64_t i = 0; i < ours.numel(); ++i) {
        diff = std::max(diff, double(std::abs(ours.floatAt(i) - golden.floatAt(i))));
        biggest = std::max(biggest, double(std::abs(golden.floatAt(i))));
    }
    if (largestGolden) *largestGolden = biggest;
    return diff;
}

}  // namespace

TEST_CASE("LoRA training step: loss, A's and B's gradients and the AdamW update match PyTorch's", "[train][lora]") {
    std::ifstream in(trainFixture("lora_step.json"));
    const nlohmann::json golden = nlohmann::json::parse(in);
    const TorchCheckpoint lora = TorchCheckpoint::load(trainFixture("lora.pth"));
    Model model = tinyModel();
    const Model frozen = tinyModel();
    LoraAdapter adapter{.trained = true, .alpha = golden["alpha"].get<float>()};
    for (const auto& t : lora.tensors()) {
        if (t.name.starts_with("grad.") || t.name.starts_with("updated.")) continue;
        LoraAdapter::Pair& pair = adapter.pairs[t.name.substr(0, t.name.size() - std::string(".lora_a").size())];
        (t.name.ends_with(".lora_a") ? pair.A : pair.B) = t.tensor.clone();
    }
    REQUIRE(adapter.pairs.size() == 2 * golden["targets"].size());
    CHECK(adapter.rank() == golden["rank"].get<int>());
    model.adapters.push_back(adapter);

    Gradients grads(model);
    REQUIRE(grads.entries().size() == 2 * adapter.pairs.size());  // A and B of each pair, nothing else
    const double loss = trainOnBatch(model, tinyBatch(), grads);
    // F32 on both sides, sums in other orders: the same tolerances as the whole model's step.
    CHECK(loss == Approx(golden["loss"].get<double>()).epsilon(1e-6));
    for (const auto& e : grads.entries()) {
        INFO(e.name);
        const Tensor* want = lora.find("grad." + e.name);
        REQUIRE(want);
        double largest = 0;
        const double diff = largestDifference(e.gradient, *want, &largest);
        CHECK(largest > 0);
        CHECK(diff <= 2e-5 * largest);
    }

    CHECK(clipGradientNorm(grads, golden["clip"].get<double>()) == Approx(golden["grad_norm"].get<double>()).epsilon(1e-5));
    AdamW adamw(grads, {.beta1 = golden["betas"][0].get<float>(), .beta2 = golden["betas"][1].get<float>(), .eps = golden["eps"].get<float>(),
                        .weightDecay = golden["weight_decay"].get<float>()});
    adamw.step(grads, golden["lr"].get<float>());
    for (const auto& e : grads.entries()) {
        INFO(e.name);
        const Tensor* want = lora.find("updated." + e.name);
        REQUIRE(want);
        // The first step moves every number by about lr (Adam's normalised step): compare with that.
        CHECK(largestDifference(e.weight, *want) <= 1e-4 * golden["lr"].get<double>() + 1e-6);
    }
    // The model's own weights are frozen: not a bit moved.
    for (size_t i = 0; i < model.tensors.size(); ++i) {
        INFO(model.tensors[i].first);
        CHECK(largestDifference(model.tensors[i].second, frozen.tensors[i].second) == 0);
    }
}
