#include "lens_view.h"

#include <fmt/format.h>

#include <algorithm>

#include "ml/ops.h"
#include "stages/numbering.h"

namespace llama::cli {

void LensCollector::onStage(const StageEvent& event) {
    if (event.step != step_) residuals_.clear(), step_ = event.step;
    if (event.stage == StageId::SequenceLoop && event.tensors[0].tensor->hasData()) {
        const Tensor& t = *event.tensors[0].tensor;
        inputs_.assign(t.data<int32_t>(), t.data<int32_t>() + t.numel());
    }
    if (event.stage != StageId::FfnResidual) return;
    startPos_ = event.startPos;
    for (const auto& t : event.tensors)
        if (t.name == "output") residuals_[event.layer] = t.tensor->clone();
}

std::string LensCollector::describe(int k, int maxPositions) const {
    if (residuals_.empty()) return "logit lens: no block of this step has finished yet (it reads each block's output, stage 18)\n";
    if (!residuals_.begin()->second.hasData()) return "logit lens: no values in a dry run\n";
    auto piece = [&](const TokenProbability& p) { return fmt::format("{:?} {:.2f}", tokenizer_.pieceForDisplay(p.id), p.probability); };
    std::string out = fmt::format("logit lens, step {}: the final norm and output projection applied after each layer\n", step_);
    const int64_t rows = residuals_.begin()->second.dim(0);
    const int64_t first = k > 0 ? rows - 1 : std::max<int64_t>(0, rows - maxPositions);
    auto input = [&](int64_t row) { return row < int64_t(inputs_.size()) ? fmt::format("{:?}", tokenizer_.pieceForDisplay(inputs_[size_t(row)])) : "?"; };
    if (k == 0) {
        out += fmt::format("{:>8}", "position");
        for (int64_t r = first; r < rows; ++r) out += fmt::format(" {:>16}", startPos_ + r);
        out += fmt::format("\n{:>8}", "input");
        for (int64_t r = first; r < rows; ++r) out += fmt::format(" {:>16}", input(r));
        out += "\n";
    } else {
        out += fmt::format("at position {} (input {}), the {} most likely next tokens:\n", startPos_ + rows - 1, input(rows - 1), k);
    }
    for (const auto& [layer, residual] : residuals_) {
        const auto top = lens_.topTokens(ml::Slice(residual, first, rows), std::max(k, 1));
        out += fmt::format("{:>8}", layerLabel(layer));
        for (const auto& position : top) {
            if (k == 0) out += fmt::format(" {:>16}", piece(position.front()));
            else
                for (const auto& p : position) out += "  " + piece(p);
        }
        out += "\n";
    }
    return out;
}

}  // namespace llama::cli
