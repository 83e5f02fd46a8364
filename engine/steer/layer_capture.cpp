#include "steer/layer_capture.h"

#include <fmt/format.h>

#include <stdexcept>

#include "ml/ops.h"

namespace llama {

LayerCapture::LayerCapture(StageId stage, std::string tensor, int nLayers) : stage_(stage), tensor_(std::move(tensor)), rows_(size_t(nLayers)) {}

StageReads LayerCapture::reads(StageId stage, int) const { return stage == stage_ ? StageReads::Values : StageReads::Shapes; }

void LayerCapture::onStage(const StageEvent& event) {
    if (event.stage != stage_ || event.skipped || event.layer < 0 || size_t(event.layer) >= rows_.size()) return;
    const Tensor* t = event.tensorField(tensor_);
    for (const auto& st : event.tensors)
        if (st.name == tensor_) t = st.tensor;
    if (!t || !t->hasData()) return;
    const Tensor f32 = ml::ToFloat32(*t);
    dim_ = int(f32.dim(f32.rank() - 1));
    rows_[size_t(event.layer)].assign(f32.data<float>(), f32.data<float>() + f32.numel());
}

std::vector<float> LayerCapture::row(int layer, int position) const {
    const auto& r = rows_.at(size_t(layer));
    if (dim_ == 0 || size_t(position + 1) * size_t(dim_) > r.size())
        throw std::out_of_range(fmt::format("layer {} has no captured row for position {}", layer + 1, position));
    return {r.begin() + int64_t(position) * dim_, r.begin() + int64_t(position + 1) * dim_};
}

}  // namespace llama
