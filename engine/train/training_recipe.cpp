#include "train/training_recipe.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace llama {

ModelArgs bundledModelArgs(int vocabSize) {
    ModelArgs args;
    args.dim = 256;
    args.n_layers = 8;
    args.n_heads = 8;
    args.n_kv_heads = 2;
    args.vocab_size = vocabSize;
    args.multiple_of = 256;
    args.ffn_dim_multiplier = 1.3;
    args.norm_eps = 1e-5;
    args.rope_theta = 500000.0;
    return args;
}

ModelArgs trainingModelArgs(const TrainingShape& shape, int vocabSize, int seqLen, const std::string& source) {
    ModelArgs args = bundledModelArgs(vocabSize);
    args.dim = shape.dim;
    args.n_layers = shape.nLayers;
    args.n_heads = shape.nHeads;
    args.n_kv_heads = shape.nKVHeads;
    args.multiple_of = shape.multipleOf;
    args.ffn_dim_multiplier = shape.ffnDimMultiplier;
    args.rope_theta = shape.ropeTheta;
    args.max_seq_len = seqLen;
    args.validate(source);
    return args;
}

float learningRate(const TrainingRecipe& recipe, int step) {
    if (step < recipe.warmup) return recipe.lr * float(step + 1) / float(recipe.warmup);
    if (const auto& points = recipe.lrSchedule; !points.empty()) {
        const auto next = std::find_if(points.begin(), points.end(), [&](const LrPoint& p) { return p.step - 1 >= step; });
        if (next == points.begin()) return points.front().lr;
        if (next == points.end()) return points.back().lr;
        const LrPoint& a = *(next - 1);
        const double t = double(step - (a.step - 1)) / double(next->step - a.step);
        return float(double(a.lr) + (double(next->lr) - double(a.lr)) * t);
    }
    const double progress = std::min(1.0, double(step) / double(recipe.steps));
    return float(recipe.lr * (recipe.minLrFrac + (1 - recipe.minLrFrac) * 0.5 * (1 + std::cos(std::numbers::pi * progress))));
}

}  // namespace llama
