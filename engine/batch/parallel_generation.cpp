#include "batch/parallel_generation.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <optional>
#include <stdexcept>

#include "batch/batch_decode.h"
#include "ml/ops.h"
#include "tokenizer/utf8_stream.h"

namespace llama {

namespace {

using Clock = std::chrono::steady_clock;

// One of the nParallel places a sequence runs in (llama.cpp's client / server slot).
struct Slot {
    int seq = 0;        // its sequence id in the cells: 1..nParallel (0 is the shared prefix)
    int request = -1;   // the prompt it is generating for; -1: free
    int nPast = 0;      // positions it holds
    int32_t pending = -1;  // sampled, not yet decoded
    std::optional<Sampler> sampler;
    Utf8StreamDecoder decoder;
};

}  // namespace

int sharedPrefixLength(const std::vector<std::vector<int32_t>>& prompts) {
    if (prompts.size() < 2) return 0;
    size_t n = prompts[0].size();
    for (const auto& p : prompts) {
        n = std::min(n, p.size());
        n = size_t(std::mismatch(prompts[0].begin(), prompts[0].begin() + long(n), p.begin()).first - prompts[0].begin());
    }
    for (const auto& p : prompts)
        if (p.size() == n && n > 0) --n;  // each prompt keeps its last token
    return int(n);
}

ParallelResult ParallelGenerator::generate(InferenceContext& ctx, const std::vector<std::vector<int32_t>>& prompts,
                                           const ParallelSettings& settings, const std::function<void(int, const std::string&)>& onText) const {
    if (settings.nParallel < 1) throw std::invalid_argument(fmt::format("--parallel {}: at least 1 sequence", settings.nParallel));
    if (prompts.empty()) throw std::invalid_argument("no prompts to generate for");
    const int nSlots = std::min<int>(settings.nParallel, int(prompts.size()));
    ParallelResult result;
    result.sequences.resize(prompts.size());
    const int prefix = sharedPrefixLength(prompts);
    result.sharedPrefixTokens = prefix;
    // Each sequence's share of the cells: the shared prefix once, the rest split evenly (llama.cpp's
    // server gives each slot n_ctx / n_parallel).
    const int perSequence = prefix + (ctx.maxSeqLen - prefix) / nSlots;
    result.positionsPerSequence = perSequence;
    if (perSequence - prefix < 2)
        throw std::invalid_argument(fmt::format("--parallel {}: {} sequences do not fit in --max-seq-len {} ({} cells each after the {}-token "
                                                "shared prefix; each needs at least 2)",
                                                settings.nParallel, nSlots, ctx.maxSeqLen, perSequence - prefix, prefix));
    for (size_t r = 0; r < prompts.size(); ++r) {
        if (prompts[r].empty()) throw std::invalid_argument(fmt::format("prompt {} encodes to no tokens", r + 1));
        if (int(prompts[r].size()) >= perSequence)
            throw std::invalid_argument(fmt::format("prompt {} has {} tokens, but each of the {} sequences has room for {} positions of "
                                                    "--max-seq-len {}: it must be shorter (or use fewer sequences, or a larger --max-seq-len)",
                                                    r + 1, prompts[r].size(), nSlots, perSequence, ctx.maxSeqLen));
    }
    if (settings.contextShift && std::max(settings.nKeep, prefix) >= perSequence - 1)
        throw std::invalid_argument(fmt::format("--keep {}: a context shift must free something of the {} positions a sequence has",
                                                settings.nKeep, perSequence));

    const auto start = Clock::now();
    auto now = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    const auto stopIds = tokenizer_.stopIds();
    std::vector<bool> everUsed(size_t(ctx.Cells.size()), false);
    auto decode = [&](const LlamaBatch& batch) {
        DecodeOutputs out = llamaDecode(ctx, transformer_, batch, settings.nUbatch);
        result.passes++;
        result.cellsWritten += batch.size();
        for (int i = 0; i < ctx.Cells.size(); ++i)
            if (ctx.Cells.cell(i).pos >= 0) everUsed[size_t(i)] = true;
        result.maxCellsUsed = std::max(result.maxCellsUsed, ctx.Cells.used());
        return out;
    };

    std::vector<Slot> slots(static_cast<size_t>(nSlots));
    for (int s = 0; s < nSlots; ++s) slots[size_t(s)].seq = s + 1;
    size_t nextRequest = 0;
    try {
        // The shared prefix, once, as sequence 0; every sequence copies it (seq_cp).
        if (prefix > 0) {
            LlamaBatch batch;
            for (int i = 0; i < prefix; ++i) batch.add(prompts[0][size_t(i)], i, {0}, false);
            decode(batch);
            result.promptTokensDecoded += prefix;
        }
        while (true) {
            LlamaBatch batch;
            // Each running sequence's sampled token, after a context shift if it has no room left.
            for (Slot& slot : slots) {
                if (slot.request < 0) continue;
                SequenceResult& seq = result.sequences[size_t(slot.request)];
                // As llama.cpp's examples: the shift (or the stop) comes when the next token would
                // fill the sequence's last cell, so one cell is always left free.
                if (slot.nPast + 1 >= perSequence) {
                    if (!settings.contextShift) {
                        seq.stopReason = "context length";
                        seq.text += slot.decoder.flush();
                        seq.finishedAt = now();
                        ctx.Cells.seqRm(slot.seq, -1, -1);
                        slot.request = -1;
                        continue;
                    }
                    const int nKeep = std::max(settings.nKeep, prefix);
                    const int nDiscard = (slot.nPast - nKeep) / 2;
                    // The cells before the shift, for its mark: a snapshot, so made before the shift
                    // (and only when the run is observed); the text after it is made by the mark.
                    const bool observed = ctx.observed();
                    const int cells = observed ? ctx.Cells.size() : 0;
                    const Tensor before = ctx.Cells.positions(cells), seqsBefore = ctx.Cells.sequences(cells);
                    const std::string cellsBefore = observed ? ctx.Cells.map(ctx.Cells.nKV(), 8) : "";  // under "before: "
                    ctx.Cells.seqRm(slot.seq, nKeep, nKeep + nDiscard);
                    ctx.Cells.seqAdd(slot.seq, nKeep + nDiscard, slot.nPast, -nDiscard);
                    ctx.stage(marks::ContextShift{.seq = slot.seq, .nPast = slot.nPast, .nKeep = nKeep, .nDiscard = nDiscard, .before = before,
                                                  .after = ctx.Cells.positions(cells), .seqsBefore = seqsBefore,
                                                  .seqsAfter = ctx.Cells.sequences(cells), .cellsBefore = [&] { return cellsBefore; },
                                                  .cellsAfter = [&] { return ctx.Cells.map(ctx.Cells.nKV(), 8); }});
                    slot.nPast -= nDiscard;
                    seq.contextShifts++;
                }
                batch.add(slot.pending, slot.nPast++, {slot.seq}, true);
                result.generatedTokensDecoded++;
            }
            // Free places take the next queued prompts, in the same batch (continuous batching).
            for (Slot& slot : slots) {
                if (slot.request >= 0 || nextRequest >= prompts.size()) continue;
                slot.request = int(nextRequest++);
                const auto& prompt = prompts[size_t(slot.request)];
                SequenceResult& seq = result.sequences[size_t(slot.request)];
                seq.promptTokens = prompt;
                seq.joinedAt = now();
                SamplingSettings sampling = settings.sampling;
                sampling.seed += uint64_t(slot.request);
                slot.sampler.emplace(sampling);
                for (int32_t id : prompt) slot.sampler->accept(id);
                slot.decoder = Utf8StreamDecoder{};
                ctx.Cells.seqRm(slot.seq, -1, -1);
                if (prefix > 0) ctx.Cells.seqCp(0, slot.seq, -1, -1);
                for (size_t i = size_t(prefix); i < prompt.size(); ++i)
                    batch.add(prompt[i], int32_t(i), {slot.seq}, i + 1 == prompt.size());
                result.promptTokensDecoded += int64_t(prompt.size()) - prefix;
                slot.nPast = int(prompt.size());
            }
            if (batch.size() == 0) break;

            const DecodeOutputs out = decode(batch);

            // Each sequence with logits samples its next token, or finishes.
            for (int i = 0; i < batch.size(); ++i) {
                const int row = out.outputOfToken[size_t(i)];
                if (row < 0) continue;
                Slot& slot = *std::find_if(slots.begin(), slots.end(), [&](const Slot& s) { return s.seq == batch.seqIds[size_t(i)][0]; });
                SequenceResult& seq = result.sequences[size_t(slot.request)];
                Tensor logits = ml::Reshape(ml::Slice(out.logits, row, row + 1), {out.logits.dim(1)});
                int32_t next = 0;
                if (logits.hasData()) {
                    std::optional<Tensor> penalized;
                    if (slot.sampler->settings().penalizes()) penalized = slot.sampler->penalize(logits);
                    next = slot.sampler->choose(penalized ? *penalized : logits);
                }
                const int32_t previous = seq.generatedTokens.empty() ? seq.promptTokens.back() : seq.generatedTokens.back();
                const bool stop = std::find(stopIds.begin(), stopIds.end(), next) != stopIds.end();
                if (!stop) {
                    seq.generatedTokens.push_back(next);
                    slot.sampler->accept(next);
                    const std::string piece = slot.decoder.feed(tokenizer_.decodeAfter(previous, next));
                    seq.text += piece;
                    if (onText && !piece.empty()) onText(slot.request, piece);
                }
                if (stop || int(seq.generatedTokens.size()) >= settings.maxTokens) {
                    seq.stopReason = stop ? "end of turn token" : "max tokens";
                    const std::string rest = slot.decoder.flush();
                    seq.text += rest;
                    if (onText && !rest.empty()) onText(slot.request, rest);
                    seq.finishedAt = now();
                    ctx.Cells.seqRm(slot.seq, -1, -1);  // its cells are free for the next prompt
                    slot.request = -1;
                } else {
                    slot.pending = next;
                }
            }
        }
    } catch (const GenerationStopped&) {
        for (auto& seq : result.sequences)
            if (seq.stopReason.empty()) {
                seq.stopReason = "stopped";
                seq.finishedAt = now();
            }
    }
    // Every write beyond the first into a cell reused a cell some sequence had freed.
    result.cellsReused = result.cellsWritten - std::count(everUsed.begin(), everUsed.end(), true);
    result.seconds = now();
    return result;
}

}  // namespace llama
