#pragma once
// The stepper's `lens`: the logit lens (generate/logit_lens.h) of the current step, from the
// residual stream each block has handed on so far.
#include <map>
#include <string>
#include <vector>

#include "generate/logit_lens.h"
#include "tokenizer/tokenizer.h"

namespace llama::cli {

class LensCollector : public StageObserver {
public:
    LensCollector(const LogitLens& lens, const Tokenizer& tokenizer) : lens_(lens), tokenizer_(tokenizer) {}
    // Keeps a copy of each block's output (ffn_residual) of the current token step.
    void onStage(const StageEvent& event) override;
    StageReads reads(StageId stage, int) const override {
        return stage == StageId::FfnResidual || stage == StageId::SequenceLoop ? StageReads::Values : StageReads::Shapes;
    }

    // k == 0: a grid of the top token of each layer (rows) at the last positions (columns, at most
    // maxPositions); k > 0: the k most likely tokens of each layer at the last position.
    std::string describe(int k, int maxPositions = 6) const;

private:
    const LogitLens& lens_;
    const Tokenizer& tokenizer_;
    int step_ = -1, startPos_ = 0;
    std::map<int, Tensor> residuals_;  // layer -> output [seqLen, Dim]
    std::vector<int32_t> inputs_;      // the step's input tokens
};

}  // namespace llama::cli
