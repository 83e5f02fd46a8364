#pragma once
// Everything one generation carries between forward passes: the KV cache of every layer,
// the observers watching the stages, and where we are in the run.
#include <atomic>
#include <initializer_list>
#include <vector>

#include "model/model_args.h"
#include "tensor/tensor.h"
#include "stages/stage_event.h"

namespace llama {

class InferenceContext {
public:
    // Caches are allocated for max_seq_len positions (shape-only when `shapesOnly`, for dry runs).
    InferenceContext(const ModelArgs& args, bool shapesOnly = false);

    std::vector<Tensor> CacheK;  // per layer: [maxSeqLen, N_KVHeads, HeadDim]
    std::vector<Tensor> CacheV;
    int maxSeqLen;
    int step = 0;  // token step (0 = prefill)

    void addObserver(StageObserver* observer) { observers_.push_back(observer); }
    bool observed() const { return !observers_.empty(); }
    // Asks the engine to end the generation at the next stage boundary (any thread).
    void requestStop() { stopRequested_ = true; }
    bool stopRequested() const { return stopRequested_; }

    // Tells every observer that `stage` finished. The message is built only when someone
    // listens, so an unobserved run pays nothing for logging.
    template <typename MessageFn>
    void emit(StageId stage, int layer, int startPos, MessageFn&& message, std::initializer_list<StageTensor> tensors) {
        if (stopRequested_) throw GenerationStopped{};
        if (observers_.empty()) return;
        StageEvent event{stage, layer, step, startPos, message(), std::vector<StageTensor>(tensors)};
        for (auto* o : observers_) o->onStage(event);
        if (stopRequested_) throw GenerationStopped{};
    }

private:
    std::vector<StageObserver*> observers_;
    std::atomic<bool> stopRequested_{false};
};

}  // namespace llama
