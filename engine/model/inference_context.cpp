#include "model/inference_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "ml/ops.h"

namespace llama {

InferenceContext::InferenceContext(const ModelArgs& args, bool shapesOnly, DType cacheDType)
    : maxSeqLen(args.max_seq_len),
      Cells(args.max_seq_len),
      nLayers_(args.n_layers),
      nHeads_(args.n_heads),
      nKVHeads_(args.n_kv_heads),
      nRep_(args.nRep()),
      headDim_(args.headDim()) {
    Shape cacheShape{args.max_seq_len, args.n_kv_heads, args.headDim()};
    for (int i = 0; i < args.n_layers; ++i) {
        CacheK.push_back(shapesOnly ? Tensor::shapeOnly(cacheShape, cacheDType) : Tensor::uninitialized(cacheShape, cacheDType));
        CacheV.push_back(shapesOnly ? Tensor::shapeOnly(cacheShape, cacheDType) : Tensor::uninitialized(cacheShape, cacheDType));
    }
    cacheRows_.assign(size_t(std::max(args.n_layers, 0)), 0);
}

void InferenceContext::useCacheDType(DType dtype, Cell firstCell) {
    if (CacheK.empty() || CacheK[0].dtype() == dtype) return;
    if (firstCell.value != 0)
        throw std::logic_error(fmt::format("the KV cache holds {} but this pass computes in {}: one context serves one transformer",
                                           dtypeName(CacheK[0].dtype()), dtypeName(dtype)));
    for (auto* caches : {&CacheK, &CacheV})
        for (Tensor& cache : *caches)
            cache = cache.hasData() ? Tensor::uninitialized(cache.shape(), dtype) : Tensor::shapeOnly(cache.shape(), dtype);
    std::fill(cacheRows_.begin(), cacheRows_.end(), 0);
}

void InferenceContext::prepareCacheRows(int layer, int64_t rows) {
    int64_t& ready = cacheRows_.at(size_t(layer));
    rows = std::min<int64_t>(rows, maxSeqLen);
    if (rows <= ready) return;
    for (Tensor* cache : {&CacheK[size_t(layer)], &CacheV[size_t(layer)]}) {
        if (!cache->hasData()) continue;
        const int64_t rowElements = cache->dim(1) * cache->dim(2);
        std::memset(cache->mutableData<char>() + dtypeBytes(cache->dtype(), ready * rowElements), 0,
                    dtypeBytes(cache->dtype(), (rows - ready) * rowElements));
    }
    ready = rows;
}

InferenceContext::Place::Place(InferenceContext& ctx, int layer, Position startPos, Cell firstCell)
    : ctx_(ctx), layer_(ctx.layer_), startPos_(ctx.startPos_) {
    ctx.layer_ = layer;
    ctx.startPos_ = startPos.value;
    ctx.cacheSummaries_.forgetFrom(layer, firstCell);  // what follows may rewrite these rows
}

InferenceContext::Place::~Place() {
    ctx_.layer_ = layer_;
    ctx_.startPos_ = startPos_;
}

bool InferenceContext::readsValues(StageId stage) const {
    return std::any_of(observers_.begin(), observers_.end(), [&](const StageObserver* o) { return o->reads(stage, layer_) == StageReads::Values; });
}

bool InferenceContext::readsWording(StageId stage) const {
    return std::any_of(observers_.begin(), observers_.end(), [&](const StageObserver* o) { return o->reads(stage, layer_) != StageReads::Handles; });
}

void InferenceContext::deliver(StageId stage, std::vector<StageField> all, SkippedIf skipped, bool wording) {
    all.reserve(all.size() + 9);  // these five and makeStageEvent's four: one allocation
    for (auto [name, value] : {std::pair{"N_Layers", nLayers_}, {"N_Heads", nHeads_}, {"N_KVHeads", nKVHeads_}, {"N_Rep", nRep_},
                               {"HeadDim", headDim_}})
        all.emplace_back(name, value);
    // Strided views (the transposed keys and values) are copied to row-major only when some
    // observer reads values at this stage: the debug log and a trace's summaries read them in place.
    std::vector<Tensor> rowMajor;
    if (readsValues(stage)) {
        rowMajor.reserve(all.size());
        for (StageField& field : all)
            if (auto* t = std::get_if<const Tensor*>(&field.value); t && *t && !(*t)->isContiguous())
                *t = &rowMajor.emplace_back(ml::Contiguous(**t));
    }
    // cache_write shows each layer's whole cache: zeroed to its end first for an observer that
    // reads more of it than its summary (the summaries count the rows not reached as zeros).
    if (stage == StageId::CacheWrite && layer_ >= 0 &&
        std::any_of(observers_.begin(), observers_.end(), [&](const StageObserver* o) {
            return o->readsWholeCaches() && (o->reads(stage, layer_) == StageReads::Values || o->reads(stage, layer_) == StageReads::Statistics);
        }))
        prepareCacheRows(layer_, maxSeqLen);
    StageEvent event = makeStageEvent(stage, layer_, step, startPos_, skipped.skipped, std::move(all), wording);
    event.known = &cacheSummaries_;
    {
        const std::lock_guard<std::mutex> oneAtATime(oneAtATime_);
        for (auto* o : observers_) o->onStage(event);
    }
    if (stopRequested()) throw GenerationStopped{};
}

}  // namespace llama
