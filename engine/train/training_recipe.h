#pragma once
// How a model is trained: the recipe of assets/train.py, with the values assets/build.sh gave it
// for the bundled model as defaults (so `train` with no options makes that model again).
#include <cstdint>
#include <string>
#include <vector>

#include "model/model_args.h"

namespace llama {

// A recorded learning rate (train/lr_schedule.h): the rate the last of the first `step` steps used.
struct LrPoint {
    int step;
    float lr;
    bool operator==(const LrPoint&) const = default;
};

struct TrainingRecipe {
    int seqLen = 256;         // tokens per window
    int batch = 16;           // windows per step
    int steps = 4000;
    int warmup = 100;         // steps of linear warmup
    float lr = 1.5e-3f;       // peak learning rate
    float minLrFrac = 0.1f;   // the cosine decays to this fraction of lr
    float weightDecay = 0.1f;
    float clip = 1.0f;        // global gradient-norm clipping
    int evalEvery = 100;      // steps between held-out losses
    uint64_t seed = 1234;
    std::string initFrom;     // the model whose weights training starts from; empty: a random initialisation
    // The linear layers' products with BF16 operands and F32 sums, as train.py's bf16 autocast
    // (ml/bf16_products.h), which trained the bundled model; false: F32 operands throughout.
    bool bf16Products = true;
    // Past the warmup, a recorded run's rates in place of the cosine (empty: the cosine).
    std::vector<LrPoint> lrSchedule;
};

// The bundled model's shape (assets/model/params.json) with `vocabSize` tokens.
ModelArgs bundledModelArgs(int vocabSize);

// What train may change of that shape (its --dim, --n-layers, ... options), the bundled model's values by default.
struct TrainingShape {
    int dim = 256, nLayers = 8, nHeads = 8, nKVHeads = 2, multipleOf = 256;
    double ffnDimMultiplier = 1.3, ropeTheta = 500000.0;
};

// The model to train: the bundled model's shape changed by `shape`, `vocabSize` tokens, a
// context of one window (`seqLen`). Throws std::invalid_argument naming the field (and `source`)
// when no model can have that shape.
ModelArgs trainingModelArgs(const TrainingShape& shape, int vocabSize, int seqLen, const std::string& source);

// assets/train.py's lr_at: linear warmup over `warmup` steps, then cosine decay from lr to
// lr * minLrFrac at the last step. `step` counts from 0. With an lrSchedule, past the warmup: its
// rates, linearly interpolated between records (record i's at step lrSchedule[i].step - 1),
// the first record's before it and the last one's after it.
float learningRate(const TrainingRecipe& recipe, int step);

}  // namespace llama
