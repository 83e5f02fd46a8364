#include "generate/perplexity.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "model/inference_context.h"
#include "model/llama_transformer.h"

namespace llama {

PerplexityResult computePerplexity(const Model& model, const std::vector<int32_t>& ids, int ctx, int maxChunks) {
    if (ctx < 4) throw std::invalid_argument(fmt::format("perplexity: the context must be at least 4 tokens, got {}", ctx));
    if (ctx > model.args.max_seq_len)
        throw std::invalid_argument(fmt::format("perplexity: a context of {} tokens is longer than the model's {}", ctx, model.args.max_seq_len));
    if (int64_t(ids.size()) < ctx)
        throw std::invalid_argument(fmt::format("perplexity: the text has {} tokens, fewer than one chunk of {}", ids.size(), ctx));
    PerplexityResult r;
    r.ctx = ctx;
    r.chunks = int(ids.size() / size_t(ctx));
    if (maxChunks > 0 && maxChunks < r.chunks) r.chunks = maxChunks;
    const int first = ctx / 2;
    r.scoredPerChunk = ctx - 1 - first;
    const LlamaTransformer transformer(model);
    ModelArgs chunkArgs = model.args;
    chunkArgs.max_seq_len = ctx;  // a chunk's KV cache needs no more positions
    const int64_t vocab = model.args.vocab_size;
    double sum = 0, sumSquares = 0;
    int64_t count = 0;
    for (int c = 0; c < r.chunks; ++c) {
        std::vector<int32_t> chunk(ids.begin() + int64_t(c) * ctx, ids.begin() + int64_t(c + 1) * ctx);
        chunk[0] = model.tokenizer->bosId();
        InferenceContext context(chunkArgs);
        const Tensor logits = transformer.Forward(context, Tensor::fromInt32(chunk), 0);  // F32 [ctx, vocab]
        const float* l = logits.data<float>();
        for (int pos = first; pos < ctx - 1; ++pos) {
            const float* row = l + int64_t(pos) * vocab;
            double maxLogit = row[0];
            for (int64_t v = 1; v < vocab; ++v) maxLogit = std::max(maxLogit, double(row[v]));
            double z = 0;
            for (int64_t v = 0; v < vocab; ++v) z += std::exp(double(row[v]) - maxLogit);
            const double nll = maxLogit + std::log(z) - double(row[chunk[pos + 1]]);  // -ln softmax(row)[next]
            sum += nll;
            sumSquares += nll * nll;
            ++count;
        }
        r.runningPpl.push_back(std::exp(sum / double(count)));
    }
    const double mean = sum / double(count);
    r.ppl = std::exp(mean);
    const double variance = count > 1 ? std::max(0.0, (sumSquares / double(count) - mean * mean) * double(count) / double(count - 1)) : 0;
    r.pplError = r.ppl * std::sqrt(variance / double(count));
    return r;
}

}  // namespace llama
