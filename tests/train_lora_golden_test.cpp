// One LoRA fine-tuning step of the engine against PyTorch autograd and torch.optim.AdamW
// (tests/fixtures/train/make_lora_golden.py): the tiny model frozen, an adapter of rank 2 on all
// seven matrices of both blocks; the loss, A's and B's gradients, the clipped norm and A and B
// after the update. The model's own weights get no gradient and do not move.
#include "train_golden_checks.h"

using namespace llama;
using namespace train_test;

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
    checkGradientsAndUpdate(grads, lora, golden);
    // The model's own weights are frozen: not a bit moved.
    for (size_t i = 0; i < model.tensors.size(); ++i) {
        INFO(model.tensors[i].first);
        CHECK(compare(model.tensors[i].second, frozen.tensors[i].second).maxDiff == 0);
    }
}
