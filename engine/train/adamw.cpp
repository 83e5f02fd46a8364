#include "train/adamw.h"

#include <cmath>

#include "ml/thread_pool.h"
#include "model/gradient_norms.h"

namespace llama {

AdamW::AdamW(const Gradients& grads, AdamWSettings settings) : settings(settings) {
    for (const auto& e : grads.entries()) {
        expAvg.emplace_back(e.weight.shape(), DType::F32);
        expAvgSq.emplace_back(e.weight.shape(), DType::F32);
    }
}

void AdamW::step(Gradients& grads, float lr) {
    ++step_;
    const float biasCorrection1 = 1.0f - std::pow(settings.beta1, float(step_));
    const float biasCorrection2Sqrt = std::sqrt(1.0f - std::pow(settings.beta2, float(step_)));
    const float stepSize = lr / biasCorrection1;
    auto& entries = grads.entries();
    for (size_t k = 0; k < entries.size(); ++k) {
        Tensor& weight = entries[k].weight;
        const float* g = entries[k].gradient.data<float>();
        float* p = weight.mutableData<float>();
        float* m = expAvg[k].mutableData<float>();
        float* v = expAvgSq[k].mutableData<float>();
        const float decay = weight.rank() >= 2 ? 1.0f - lr * settings.weightDecay : 1.0f;
        const AdamWSettings s = settings;
        ml::ThreadPool::global().parallelFor(weight.numel(), [&](int64_t i0, int64_t i1) {
            for (int64_t i = i0; i < i1; ++i) {
                p[i] *= decay;
                m[i] = m[i] * s.beta1 + g[i] * (1.0f - s.beta1);
                v[i] = v[i] * s.beta2 + g[i] * g[i] * (1.0f - s.beta2);
                const float denom = std::sqrt(v[i]) / biasCorrection2Sqrt + s.eps;
                p[i] -= stepSize * (m[i] / denom);
            }
        }, 4096);
    }
}

double clipGradientNorm(Gradients& grads, double maxNorm) {
    double squares = 0;
    for (const auto& e : grads.entries()) {
        const double n = l2Norm(e.gradient);
        squares += n * n;
    }
    const double norm = std::sqrt(squares);
    const float coefficient = float(maxNorm / (norm + 1e-6));
    if (coefficient < 1.0f)
        for (auto& e : grads.entries()) {
            float* g = e.gradient.mutableData<float>();
            for (int64_t i = 0; i < e.gradient.numel(); ++i) g[i] *= coefficient;
        }
    return norm;
}

}  // namespace llama
