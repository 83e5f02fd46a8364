#include "batch/parallel_generation.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "batch/batch_decode.h"
#include "generate/generation_loop.h"
#include "ml/ops.h"

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
};

// The batch's pass: each running sequence's sampled token (after a context shift when it has no
// room left), and the next queued prompts in the free slots, decoded together (continuous
// batching); each sequence with logits samples its next token.
class BatchPass final : public DecodeStrategy {
public:
    BatchPass(InferenceContext& ctx, const LlamaTransformer& transformer, const ParallelSettings& settings, ParallelResult& result,
              Clock::time_point start)
        : ctx_(ctx), transformer_(transformer), settings_(settings), result_(result), start_(start),
          slots_(size_t(std::min<int>(settings.nParallel, int(result.sequences.size())))), everUsed_(size_t(ctx.Cells.size()), false) {
        for (size_t s = 0; s < slots_.size(); ++s) slots_[s].seq = int(s) + 1;
    }

    std::vector<Produced> pass(std::vector<GeneratedSequence>& sequences) override {
        const int prefix = result_.sharedPrefixTokens;
        // The shared prefix, once, as sequence 0; every sequence copies it (seq_cp).
        if (!prefixDecoded_ && prefix > 0) {
            LlamaBatch batch;
            for (int i = 0; i < prefix; ++i) batch.add(sequences[0].prompt()[size_t(i)], i, {0}, false);
            decode(batch);
            result_.promptTokensDecoded += prefix;
        }
        prefixDecoded_ = true;
        LlamaBatch batch;
        for (Slot& slot : slots_) {
            if (slot.request < 0) continue;
            // As llama.cpp's examples: the shift comes when the next token would fill the
            // sequence's last cell, so one cell is always left free.
            if (slot.nPast + 1 >= result_.positionsPerSequence) shiftContext(slot);
            batch.add(slot.pending, slot.nPast++, {slot.seq}, true);
            result_.generatedTokensDecoded++;
        }
        // Free slots take the next queued prompts, in the same batch.
        for (Slot& slot : slots_) {
            while (nextRequest_ < sequences.size() && !sequences[nextRequest_].running()) ++nextRequest_;
            if (slot.request >= 0 || nextRequest_ >= sequences.size()) continue;
            slot.request = int(nextRequest_++);
            const std::vector<int32_t>& prompt = sequences[size_t(slot.request)].prompt();
            result_.sequences[size_t(slot.request)].joinedAt = now();
            SamplingSettings sampling = settings_.sampling;
            sampling.seed += uint64_t(slot.request);
            slot.sampler.emplace(sampling);
            for (int32_t id : prompt) slot.sampler->accept(id);
            ctx_.Cells.seqRm(slot.seq, -1, -1);
            if (prefix > 0) ctx_.Cells.seqCp(0, slot.seq, -1, -1);
            for (size_t i = size_t(prefix); i < prompt.size(); ++i) batch.add(prompt[i], int32_t(i), {slot.seq}, i + 1 == prompt.size());
            result_.promptTokensDecoded += int64_t(prompt.size()) - prefix;
            slot.nPast = int(prompt.size());
        }
        if (batch.size() == 0) return {};

        const DecodeOutputs out = decode(batch);
        std::vector<Produced> produced;
        for (int i = 0; i < batch.size(); ++i) {
            const int row = out.outputOfToken[size_t(i)];
            if (row < 0) continue;
            Slot& slot = slotOf(batch.seqIds[size_t(i)][0]);
            const Tensor logits = ml::Reshape(ml::Slice(out.logits, row, row + 1), {out.logits.dim(1)});
            slot.pending = chooseNext(*slot.sampler, logits).token;
            slot.sampler->accept(slot.pending);
            produced.push_back({size_t(slot.request), {slot.pending}});
        }
        return produced;
    }

    // Its cells are free for the next prompt.
    void ended(size_t sequence) override {
        result_.sequences[sequence].finishedAt = now();
        for (Slot& slot : slots_)
            if (slot.request == int(sequence)) {
                ctx_.Cells.seqRm(slot.seq, -1, -1);
                slot.request = -1;
            }
    }

    // Every write beyond the first into a cell reused a cell some sequence had freed.
    int64_t cellsReused() const { return result_.cellsWritten - std::count(everUsed_.begin(), everUsed_.end(), true); }

private:
    double now() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

    Slot& slotOf(int seq) {
        return *std::find_if(slots_.begin(), slots_.end(), [&](const Slot& s) { return s.seq == seq; });
    }

    DecodeOutputs decode(const LlamaBatch& batch) {
        DecodeOutputs out = llamaDecode(ctx_, transformer_, batch, settings_.nUbatch);
        result_.passes++;
        result_.cellsWritten += batch.size();
        for (int i = 0; i < ctx_.Cells.size(); ++i)
            if (ctx_.Cells.cell(i).pos >= 0) everUsed_[size_t(i)] = true;
        result_.maxCellsUsed = std::max(result_.maxCellsUsed, ctx_.Cells.used());
        return out;
    }

    // The sequence keeps its first nKeep positions, frees half of the rest (seq_rm) and moves the
    // remainder back (seq_add), as llama.cpp's examples do.
    void shiftContext(Slot& slot) {
        const int nKeep = std::max(settings_.nKeep, result_.sharedPrefixTokens);
        const int nDiscard = (slot.nPast - nKeep) / 2;
        // The cells before the shift, for its mark: a snapshot, so made before the shift (and only
        // when the run is observed); the text after it is made by the mark.
        const bool observed = ctx_.observed();
        const int cells = observed ? ctx_.Cells.size() : 0;
        const Tensor before = ctx_.Cells.positions(cells), seqsBefore = ctx_.Cells.sequences(cells);
        const std::string cellsBefore = observed ? ctx_.Cells.map(ctx_.Cells.nKV(), 8) : "";  // under "before: "
        ctx_.Cells.seqRm(slot.seq, nKeep, nKeep + nDiscard);
        ctx_.Cells.seqAdd(slot.seq, nKeep + nDiscard, slot.nPast, -nDiscard);
        ctx_.stage(marks::ContextShift{.seq = slot.seq, .nPast = slot.nPast, .nKeep = nKeep, .nDiscard = nDiscard, .before = before,
                                       .after = ctx_.Cells.positions(cells), .seqsBefore = seqsBefore, .seqsAfter = ctx_.Cells.sequences(cells),
                                       .cellsBefore = [&] { return cellsBefore; },
                                       .cellsAfter = [&] { return ctx_.Cells.map(ctx_.Cells.nKV(), 8); }});
        slot.nPast -= nDiscard;
        result_.sequences[size_t(slot.request)].contextShifts++;
    }

    InferenceContext& ctx_;
    const LlamaTransformer& transformer_;
    const ParallelSettings& settings_;
    ParallelResult& result_;
    Clock::time_point start_;
    std::vector<Slot> slots_;
    std::vector<bool> everUsed_;
    size_t nextRequest_ = 0;
    bool prefixDecoded_ = false;
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
    // Sequence 0 holds the shared prefix, 1..nSlots the slots.
    if (nSlots + 1 > ctx.Cells.nSeqMax())
        throw std::invalid_argument(fmt::format("--parallel {}: the KV cells keep at most {} sequences, the shared prefix's included",
                                                settings.nParallel, ctx.Cells.nSeqMax()));
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
    std::vector<GeneratedSequence> sequences;
    for (size_t r = 0; r < prompts.size(); ++r) {
        // With a context shift a sequence makes room for itself; without, it ends at its share.
        const SequenceLimits limits{.maxTokens = settings.maxTokens, .cells = settings.contextShift ? INT_MAX : perSequence};
        auto streamed = onText ? std::function<void(const std::string&)>([&onText, r](const std::string& piece) { onText(int(r), piece); })
                               : std::function<void(const std::string&)>();
        sequences.emplace_back(tokenizer_, prompts[r], limits, std::move(streamed));
    }
    BatchPass pass(ctx, transformer_, settings, result, start);
    generationLoop(sequences, pass);
    for (size_t r = 0; r < sequences.size(); ++r) {
        SequenceResult& seq = result.sequences[r];
        seq.promptTokens = prompts[r];
        seq.generatedTokens = sequences[r].generated();
        seq.text = sequences[r].text();
        seq.stopReason = sequences[r].stopReason();
    }
    result.cellsReused = pass.cellsReused();
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
}

}  // namespace llama
