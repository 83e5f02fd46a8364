#pragma once
// What the PyTorch-golden training tests check once the engine has its loss and gradients
// (train_step_golden_test.cpp: the whole tiny model; train_lora_golden_test.cpp: a LoRA adapter on
// it): every gradient against the golden's "grad.NAME", the clipped norm, one AdamW step, and
// every updated value against "updated.NAME". F32 on both sides, sums in other orders: a few units
// in the last place of F32.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "train/adamw.h"
#include "train_fixture.h"

namespace train_test {

// The largest difference, and the largest golden magnitude, over two tensors' values.
struct Difference {
    double maxDiff = 0, maxGolden = 0;
};
inline Difference compare(const llama::Tensor& ours, const llama::Tensor& golden) {
    REQUIRE(ours.shape() == golden.shape());
    Difference d;
    for (int64_t i = 0; i < ours.numel(); ++i) {
        d.maxDiff = std::max(d.maxDiff, double(std::abs(ours.floatAt(i) - golden.floatAt(i))));
        d.maxGolden = std::max(d.maxGolden, double(std::abs(golden.floatAt(i))));
    }
    return d;
}

// grads (each entry's gradient, then its weight) against `golden`'s tensors and `step`'s clip,
// AdamW settings, norm and learning rate.
inline void checkGradientsAndUpdate(llama::Gradients& grads, const llama::TorchCheckpoint& golden, const nlohmann::json& step) {
    for (const auto& e : grads.entries()) {
        INFO(e.name);
        const llama::Tensor* want = golden.find("grad." + e.name);
        REQUIRE(want);
        const Difference d = compare(e.gradient, *want);
        CHECK(d.maxGolden > 0);
        CHECK(d.maxDiff <= 2e-5 * d.maxGolden);
    }
    CHECK(llama::clipGradientNorm(grads, step["clip"].get<double>()) == Approx(step["grad_norm"].get<double>()).epsilon(1e-5));
    llama::AdamW adamw(grads, {.beta1 = step["betas"][0].get<float>(), .beta2 = step["betas"][1].get<float>(), .eps = step["eps"].get<float>(),
                               .weightDecay = step["weight_decay"].get<float>()});
    adamw.step(grads, step["lr"].get<float>());
    for (const auto& e : grads.entries()) {
        INFO(e.name);
        const llama::Tensor* want = golden.find("updated." + e.name);
        REQUIRE(want);
        // The first step moves every number by about lr (Adam's normalised step): compare with that.
        CHECK(compare(e.weight, *want).maxDiff <= 1e-4 * step["lr"].get<double>() + 1e-6);
    }
}

}  // namespace train_test
