#pragma once
// Names a tensor's axes the way the walkthrough does (seqLen, N_Heads, HeadDim, Dim,
// FFNHiddenDim...) by matching each size to the model's hyper-parameters and the current step.
#include <string>
#include <vector>

#include "model/model_args.h"
#include "tensor/tensor.h"

namespace llama::viewer {

struct DimContext {
    ModelArgs args;
    int seqLen = 0;    // tokens in this forward pass
    int startPos = 0;  // cached positions before them
    int64_t loraRank = 0;  // an adapter's backward stage: its rank, which names that axis alone
};

// One name per axis. A size that matches several quantities gets them all ("8 = seqLen or
// N_Heads"), one that matches none gets just its number.
std::vector<std::string> nameDims(const Shape& shape, const DimContext& ctx);
// An axis nameDims named as the heads (N_Heads or N_KVHeads alone): shown counting from 1.
bool isHeadAxis(const std::string& name);

}  // namespace llama::viewer
