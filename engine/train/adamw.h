#pragma once
// AdamW as PyTorch 1.13's torch.optim.AdamW computes it (decoupled weight decay, bias-corrected
// moments), for the weights of a Gradients list; and global-norm gradient clipping as
// torch.nn.utils.clip_grad_norm_. The moments are F32, one pair per weight.
#include <vector>

#include "model/gradients.h"

namespace llama {

struct AdamWSettings {
    float beta1 = 0.9f, beta2 = 0.95f, eps = 1e-8f;
    float weightDecay = 0.1f;  // matrices only: norms' weights are not decayed (assets/train.py's two groups)
};

class AdamW {
public:
    AdamW(const Gradients& grads, AdamWSettings settings);
    // One update of every weight with its gradient at learning rate lr.
    void step(Gradients& grads, float lr);
    int steps() const { return step_; }
    // A resumed run: moments and step count as a checkpoint saved them.
    void restoreSteps(int steps) { step_ = steps; }

    AdamWSettings settings;
    std::vector<Tensor> expAvg, expAvgSq;  // first and second moments, in grads' order

private:
    int step_ = 0;
};

// The global L2 norm of all gradients; when above maxNorm, every gradient is scaled by
// maxNorm / (norm + 1e-6). Returns the norm before clipping.
double clipGradientNorm(Gradients& grads, double maxNorm);

}  // namespace llama
