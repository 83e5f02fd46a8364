#include "model/inference_context.h"

namespace llama {

InferenceContext::InferenceContext(const ModelArgs& args, bool shapesOnly) : maxSeqLen(args.max_seq_len) {
    Shape cacheShape{args.max_seq_len, args.n_kv_heads, args.headDim()};
    for (int i = 0; i < args.n_layers; ++i) {
        CacheK.push_back(shapesOnly ? Tensor::shapeOnly(cacheShape, DType::BF16) : Tensor(cacheShape, DType::BF16));
        CacheV.push_back(shapesOnly ? Tensor::shapeOnly(cacheShape, DType::BF16) : Tensor(cacheShape, DType::BF16));
    }
}

}  // namespace llama
