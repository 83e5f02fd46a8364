#pragma once
// Control vectors (llama.cpp's --control-vector; Zou et al. 2023, "Representation Engineering";
// Turner et al. 2023, "Activation Addition"): per layer, a direction of `dim` floats added to the
// output of that transformer block at every position, steering the text without touching the
// prompt or the weights. Several files add up, each scaled.
//
// The files are llama.cpp's control-vector GGUF files (formats/gguf/gguf_control_vector.h):
// tensor direction.N is added to the output of block N counted from 0, i.e. layer N + 1 as the
// debug log counts layers. llama.cpp never steers block 0, so there is no direction.0 and the
// first layer's output is never steered. --control-vector-layers A-B takes log layers (from 1):
// llama.cpp's --control-vector-layer-range START END is A-1 B-1.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace llama {

struct ControlVectorFile {
    std::string path;
    float scale = 1.0f;
};

struct Steering {
    std::vector<ControlVectorFile> files;
    std::optional<std::pair<int, int>> layers;  // log layers, inclusive; none: every layer a file has
    int dim = 0;
    std::map<int, Tensor> directions;           // 0-based block -> F32 [dim]: the scaled sum, layers applied

    // nullptr when this block is not steered.
    const Tensor* directionFor(int block) const;
    // As typed: "--control-vector happy.gguf:0.8 --control-vector-layers 3-6".
    std::string describe() const;
    // Throws std::invalid_argument naming the file when its vectors do not fit the model.
    void validate(int modelDim, int nLayers) const;
};

// "FILE" or "FILE:SCALE" (the last ':' followed by a number); throws std::invalid_argument.
ControlVectorFile parseControlVectorArgument(const std::string& text);

// What the control-vector stage's line says: the direction's norm beside the residual's (the
// block output's mean row norm), e.g. "direction norm 3.2, residual norm 41.5 per position, 7.7%".
std::string steeringNorms(const Tensor& residual, const Tensor& direction);

}  // namespace llama
