#pragma once
// A control vector from two sets of prompts (llama-walkthrough cvector; llama.cpp's
// cvector-generator --method mean makes the same kind of file): run each prompt, keep every
// block's output at the prompt's last position, and take, per layer, the mean over the positive
// prompts minus the mean over the negative ones. With one positive and one negative prompt this
// is Turner et al.'s activation addition ("Love" - "Hate"); over many pairs, Zou et al.'s
// representation reading by mean difference.
//
// direction.N is block N's difference (counted from 0), the block whose output it is added to
// (model/steering.h); there is none for block 0. llama.cpp's generator stores block N-1's under
// direction.N, averages over every position of padded prompt pairs and scales each direction to
// norm 1; `unit` does the last of these too, so a file made here with --unit is steered by the
// same SCALE values as one of llama.cpp's.
//
// Method pca (llama.cpp's generator's default): the prompts pair line by line, and each block's
// direction is the first principal direction of the pairs' differences, as llama.cpp computes it:
// the top eigenvector of DᵀD (D: a row per pair, not centred), by power iteration, norm 1.
// llama.cpp starts the iteration from a random vector, so its sign may come out either way; here
// it starts from the mean difference and points the way the mean difference does.
#include <map>
#include <string>
#include <vector>

#include "model/model.h"

namespace llama {

struct ControlVectorLayer {
    int layer = 0;               // as the log counts, from 1
    double directionNorm = 0;    // the mean difference's, before --unit
    double residualNorm = 0;     // mean norm of the block output at the last position, over all prompts
};

enum class ControlVectorMethod { Mean, Pca };

struct MadeControlVector {
    std::map<int, std::vector<float>> directions;  // direction.N -> dim floats
    std::vector<ControlVectorLayer> layers;
};

// positive/negative: prompts as text (completion prompts: BOS, then the text). Throws
// std::invalid_argument when either set is empty, for pca when they are not pairs, and naming the
// prompts when a layer's mean difference is zero (identical prompts on both sides).
// `unit` applies to the mean (a principal direction always has norm 1).
MadeControlVector makeControlVector(const Model& model, const std::vector<std::string>& positive, const std::vector<std::string>& negative,
                                    bool unit, ControlVectorMethod method = ControlVectorMethod::Mean);

// The top eigenvector of DᵀD for D = `diffs` (a row each), by power iteration from `start` (as
// llama.cpp's generator: at most 1000 iterations, stopping when a step moves it less than 1e-7),
// norm 1, pointing the way `start` does; a zero `start` is returned as it is.
std::vector<double> firstPrincipalDirection(const std::vector<std::vector<double>>& diffs, std::vector<double> start);

}  // namespace llama
