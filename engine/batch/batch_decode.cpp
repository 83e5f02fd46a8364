#include "batch/batch_decode.h"

#include <fmt/format.h>

#include <cstdlib>
#include <deque>
#include <cstring>
#include <stdexcept>

#include "ml/ops.h"
#include "model/rope.h"

namespace llama {

namespace {

// The ubatch as the log's table: one line a token.
std::string ubatchTable(const UBatch& ubatch) {
    std::string table;  // under the wording's header "  i  token    pos  seq_ids  output"
    for (int i = 0; i < ubatch.nTokens; ++i)
        table += fmt::format("\n{:>3}  {:>5}  {:>5}  {:<7}  {}", i, ubatch.token(i), ubatch.pos(i), fmt::format("{}", fmt::join(ubatch.seqIds(i), ",")),
                             ubatch.logits(i) ? "yes" : "no");
    return table;
}

// Each token's sequences and whether its logits are wanted, as the ubatch mark's tensors.
std::pair<Tensor, Tensor> tokenTensors(const UBatch& ubatch) {
    std::vector<std::vector<int>> seqs;
    std::vector<int32_t> outputs;
    for (int i = 0; i < ubatch.nTokens; ++i) {
        seqs.push_back(ubatch.seqIds(i));
        outputs.push_back(ubatch.logits(i));
    }
    return {seqIdRows(seqs), Tensor::fromInt32(outputs)};
}

void validate(const LlamaBatch& batch, const InferenceContext& ctx, const LlamaTransformer& transformer) {
    const int64_t angles = transformer.PrecomputedFreqsCis.dim(0);
    for (int i = 0; i < batch.size(); ++i) {
        if (batch.pos[size_t(i)] < 0 || batch.pos[size_t(i)] >= angles)
            throw std::invalid_argument(fmt::format("batch token {}: position {} is outside [0, {})", i, batch.pos[size_t(i)], angles));
        if (batch.seqIds[size_t(i)].empty()) throw std::invalid_argument(fmt::format("batch token {}: it belongs to no sequence", i));
        for (int s : batch.seqIds[size_t(i)])
            if (s < 0 || s >= ctx.Cells.nSeqMax())
                throw std::invalid_argument(fmt::format("batch token {}: sequence id {} is outside [0, {})", i, s, ctx.Cells.nSeqMax()));
    }
}

}  // namespace

void shiftCachedKeys(InferenceContext& ctx, const LlamaTransformer& transformer) {
    if (!ctx.Cells.hasShift()) return;
    std::vector<int32_t> shifted;
    for (int i = 0; i < ctx.Cells.size(); ++i)
        if (ctx.Cells.cell(i).delta != 0 && ctx.Cells.cell(i).pos >= 0) shifted.push_back(i);
    if (!shifted.empty() && ctx.CacheK[0].hasData()) {
        // The angles of a rotation by delta: row |delta| of the table, conjugated when delta < 0.
        const int64_t half = transformer.PrecomputedFreqsCis.dim(1);
        Tensor freqs({int64_t(shifted.size()), half}, DType::Complex64);
        for (size_t r = 0; r < shifted.size(); ++r) {
            const int delta = ctx.Cells.cell(shifted[r]).delta;
            const Complex64* row = transformer.PrecomputedFreqsCis.data<Complex64>() + int64_t(std::abs(delta)) * half;
            for (int64_t j = 0; j < half; ++j) freqs.mutableData<Complex64>()[int64_t(r) * half + j] = delta < 0 ? std::conj(row[j]) : row[j];
        }
        const Tensor cells = Tensor::fromInt32(shifted);
        for (Tensor& cacheK : ctx.CacheK) {
            const Shape rowShape{cacheK.dim(0), cacheK.dim(1) * cacheK.dim(2)};
            Tensor keys = ml::Fwd_Get_Rows(ml::Reshape(cacheK, rowShape), cells);
            keys = applyRotaryEmbedding(ml::Reshape(keys, {keys.dim(0), cacheK.dim(1), cacheK.dim(2)}), freqs);
            for (size_t r = 0; r < shifted.size(); ++r)
                ml::SetSlice(cacheK, shifted[r], ml::Slice(keys, int64_t(r), int64_t(r) + 1));
        }
    }
    ctx.stage(marks::KvShift{.cells = int64_t(shifted.size()), .deltas = [&] {
                                 std::string deltas;
                                 for (int i : shifted) deltas += fmt::format("{} {}:{:+}", deltas.empty() ? "" : ",", i, ctx.Cells.cell(i).delta);
                                 return deltas;
                             }});
    ctx.Cells.clearShift();
}

DecodeOutputs llamaDecode(InferenceContext& ctx, const LlamaTransformer& transformer, const LlamaBatch& batch, int nUbatch) {
    if (batch.size() == 0) throw std::invalid_argument("llama_decode: the batch is empty");
    ctx.whatIf.requireOneSequence("a batch's forward pass");
    validate(batch, ctx, transformer);
    shiftCachedKeys(ctx, transformer);

    DecodeOutputs out;
    out.outputOfToken.assign(size_t(batch.size()), -1);
    const int64_t vocab = transformer.args.vocab_size;
    out.logits = ctx.CacheK.empty() || ctx.CacheK[0].hasData() ? Tensor({batch.nOutputs(), vocab}, DType::F32)
                                                                : Tensor::shapeOnly({batch.nOutputs(), vocab}, DType::F32);
    int nextOutput = 0;
    int index = 0;
    const std::vector<UBatch> split = splitIntoUBatches(batch, nUbatch);
    std::deque<UBatch> pending(split.begin(), split.end());
    while (!pending.empty()) {
        const UBatch ubatch = pending.front();
        pending.pop_front();
        const std::optional<Cell> slot = ctx.Cells.findSlot(ubatch);
        if (!slot && ubatch.nTokens > 1) {
            // The free cells are scattered (sequences finished, a context shift): as llama.cpp's
            // examples do when llama_decode finds no slot, try again with half as many tokens.
            const int half = ubatch.nTokens / 2;
            pending.push_front({ubatch.batch, ubatch.begin + half, ubatch.nTokens - half});
            pending.push_front({ubatch.batch, ubatch.begin, half});
            continue;
        }
        if (!slot)
            throw std::invalid_argument(fmt::format("llama_decode: the KV cache is full ({} of {} cells used): fewer or shorter sequences, "
                                                    "or a larger --max-seq-len",
                                                    ctx.Cells.used(), ctx.Cells.size()));
        std::vector<int32_t> tokens, positions;
        for (int i = 0; i < ubatch.nTokens; ++i) {
            tokens.push_back(ubatch.token(i));
            positions.push_back(ubatch.pos(i));
        }
        int nOutputs = 0;
        for (int i = 0; i < ubatch.nTokens; ++i) nOutputs += ubatch.logits(i);
        const Tensor inputTokens = Tensor::fromInt32(tokens), positionsTensor = Tensor::fromInt32(positions);
        const bool observed = ctx.observed();
        const auto [seqIds, outputs] = observed ? tokenTensors(ubatch) : std::pair<Tensor, Tensor>{};
        ctx.stage(marks::UBatchTokens{.ubatch = index++, .nTokens = ubatch.nTokens, .nSeqs = observed ? ubatch.nSeqs() : 0, .nOutputs = nOutputs,
                                      .inputTokens = inputTokens, .positions = positionsTensor, .seqIds = seqIds, .outputs = outputs,
                                      .table = [&] { return ubatchTable(ubatch); }});
        if (observed) {
            const int nKV = ctx.Cells.nKV();
            ctx.stage(marks::KvSlot{.nTokens = ubatch.nTokens, .head = slot->value, .used = ctx.Cells.used(), .size = ctx.Cells.size(), .nKV = nKV,
                                    .cellPos = ctx.Cells.positions(ctx.Cells.size()),
                                    .cellSeqIds = ctx.Cells.sequences(nKV), .cells = [&] { return ctx.Cells.map(nKV); }});
        }

        Tensor logits = transformer.Forward(ctx, ubatch, *slot);
        ctx.step++;
        for (int i = 0, row = 0; i < ubatch.nTokens; ++i) {
            if (!ubatch.logits(i)) continue;
            out.outputOfToken[size_t(ubatch.begin + i)] = nextOutput;
            if (logits.hasData())
                std::memcpy(out.logits.mutableData<float>() + int64_t(nextOutput) * vocab, logits.data<float>() + int64_t(row) * vocab,
                            size_t(vocab) * sizeof(float));
            ++row;
            ++nextOutput;
        }
    }
    return out;
}

}  // namespace llama
