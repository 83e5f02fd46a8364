#include "trace/trace_consistency.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace llama {

namespace {

// "'run.trace': record 22 (STAG transposes, step 0): WHAT".
[[noreturn]] void failAt(const std::string& path, int record, const TracedStage& s, const std::string& what) {
    throw TraceError(fmt::format("'{}': record {} (STAG {}, step {}): {}", path, record, s.info().key, s.step, what));
}

// The attention tensors of one token step index each other (a cell's arithmetic reads the mask at
// row * positions + column, the keys at their head's row): within a step, every one of them must
// agree on the rows (query positions) and positions (keys) it holds, and on the model's heads and
// head size.
void checkAttentionShapes(const TraceRun& run, const std::string& path, int firstRecord) {
    struct Known {
        int64_t value = -1;  // -1 until a tensor of the step says
        int record = 0;
        std::string tensor;
    };
    std::map<int, std::pair<Known, Known>> steps;  // step -> its rows and positions
    const int64_t heads = run.args.n_heads, headDim = run.args.n_heads > 0 ? run.args.dim / run.args.n_heads : 0;
    for (size_t i = 0; i < run.stages.size(); ++i) {
        const TracedStage& s = run.stages[i];
        const int record = firstRecord + int(i) + 1;
        for (const TracedTensor& t : s.tensors) {
            int64_t rows = -1, positions = -1;
            std::string expected;
            // [rows, positions] or [heads, rows, positions]; xq [heads, rows, headDim]; keys [heads, headDim, positions].
            if (t.name == "mask") {
                rows = t.shape.at(0), positions = t.shape.at(1);
            } else if ((t.name == "scores" || t.name == "xqMatMulKeys") && t.shape.size() == 3) {
                rows = t.shape[1], positions = t.shape[2];
            } else if (s.stage == StageId::Transposes && t.name == "xq") {
                if (t.shape.size() != 3 || t.shape[0] != heads || t.shape[2] != headDim) expected = fmt::format("[{} heads, rows, {}]", heads, headDim);
                else rows = t.shape[1];
            } else if (s.stage == StageId::Transposes && t.name == "keys") {
                if (t.shape.size() != 3 || t.shape[0] != heads || t.shape[1] != headDim) expected = fmt::format("[{} heads, {}, positions]", heads, headDim);
                else positions = t.shape[2];
            } else {
                continue;
            }
            if (expected.empty() && rows >= 0 && s.startPos + rows > run.args.max_seq_len)
                expected = fmt::format("at most {} rows after start position {} (the context holds {})", run.args.max_seq_len - s.startPos,
                                       s.startPos, run.args.max_seq_len);
            if (expected.empty() && positions > run.args.max_seq_len)
                expected = fmt::format("at most {} positions (the context length)", run.args.max_seq_len);
            auto& [knownRows, knownPositions] = steps[s.step];
            auto agree = [&](Known& known, int64_t value, const char* what) {
                if (value < 0 || !expected.empty()) return;
                if (known.value < 0) known = {value, record, t.name};
                else if (known.value != value)
                    expected = fmt::format("{} {}, as tensor '{}' of record {} says for step {}", known.value, what, known.tensor, known.record, s.step);
            };
            agree(knownRows, rows, "rows");
            agree(knownPositions, positions, "positions");
            if (!expected.empty())
                failAt(path, record, s, fmt::format("tensor '{}' has shape {}: expected {}", t.name, shapeToString(t.shape), expected));
        }
    }
}

// The places sequences run in: 0 alone in a run of one sequence; in a batch, 0 (the shared
// prefix) and 1..min(parallel, prompts).
int lastSequenceId(const TraceRun& run) {
    if (!run.run.batch) return 0;
    return std::min(run.run.batch->parallel, int(run.run.batch->prompts.size()));
}

std::string sequencesMeta(const TraceRun& run) {
    if (!run.run.batch) return "a run of one sequence (META has no 'batch') has sequence 0 only";
    return fmt::format("META's batch of {} prompts with --parallel {} has sequences 0 to {}", run.run.batch->prompts.size(),
                       run.run.batch->parallel, lastSequenceId(run));
}

// Every sequence id a batch object names (its tokens', its cells', a shift's own) is one META declares.
void checkSequenceIds(const TraceRun& run, const std::string& path, int record, const TracedStage& s) {
    const int last = lastSequenceId(run);
    auto check = [&](const std::vector<int>& ids, const std::string& where) {
        for (int id : ids)
            if (id > last) failAt(path, record, s, fmt::format("{} names sequence {}: {}", where, id, sequencesMeta(run)));
    };
    auto cells = [&](const std::vector<TracedCell>& list, const char* field) {
        for (size_t c = 0; c < list.size(); ++c) check(list[c].seqIds, fmt::format("field 'batch.{}[{}]'", field, c));
    };
    if (s.ubatch)
        for (size_t t = 0; t < s.ubatch->tokens.size(); ++t) check(s.ubatch->tokens[t].seqIds, fmt::format("field 'batch.tokens[{}]'", t));
    if (s.kvSlot) cells(s.kvSlot->cells, "cells");
    if (const auto& shift = s.contextShift) {
        if (!run.run.batch || !run.run.batch->contextShift)
            failAt(path, record, s, run.run.batch ? "a context shift in a batch run without it: META's 'batch.contextShift' is false"
                                                  : "a context shift in a run of one sequence (META has no 'batch')");
        // Sequence 0 is the shared prefix, which is never shifted.
        if (shift->seq < 1 || shift->seq > last)
            failAt(path, record, s, fmt::format("field 'batch.seq' is {}: expected a sequence from 1 to {} ({})", shift->seq, last, sequencesMeta(run)));
        cells(shift->before, "before");
        cells(shift->after, "after");
    }
}

// END's tokens against the records: one sequence per prompt of META, the shifts the records show,
// and no more steps than tokens.
void checkEnd(const TraceRun& run, const std::string& path, int firstRecord, int contextShifts) {
    const int record = firstRecord + int(run.stages.size()) + 1;
    auto fail = [&](const std::string& what) { throw TraceError(fmt::format("'{}': record {} (END): {}", path, record, what)); };
    int64_t tokens = int64_t(run.promptTokens.size() + run.generatedTokens.size());
    if (run.run.batch) {
        const std::vector<std::string>& prompts = run.run.batch->prompts;
        if (run.sequences.size() != prompts.size())
            fail(fmt::format("field 'sequences' lists {} sequences: expected {}, one per prompt of META's 'batch.prompts'", run.sequences.size(),
                             prompts.size()));
        int shifts = 0;
        for (size_t i = 0; i < prompts.size(); ++i) {
            const TracedSequence& s = run.sequences[i];
            if (s.prompt != prompts[i])
                fail(fmt::format("field 'sequences[{}].prompt' is not META's 'batch.prompts[{}]': the sequences come in META's order", i, i));
            tokens += int64_t(s.promptTokens.size() + s.generatedTokens.size());
            shifts += s.contextShifts;
        }
        if (shifts != contextShifts)
            fail(fmt::format("the sequences' 'contextShifts' add up to {}: expected {}, the context_shift records before END", shifts, contextShifts));
    }
    if (!run.stages.empty() && run.stages.back().step > tokens)
        fail(fmt::format("it lists {} tokens, but record {} is step {}: every step decodes at least one token", tokens, record - 1,
                         run.stages.back().step));
}

}  // namespace

int maxTraceStep(const TraceRun& run) {
    const int64_t sequences = run.run.batch ? std::max<int64_t>(1, int64_t(run.run.batch->prompts.size())) : 1;
    return int(std::min<int64_t>(sequences * (int64_t(run.args.max_seq_len) + run.run.maxTokens), INT32_MAX));
}

void checkTraceRecordsAgree(const TraceRun& run, const std::string& path, int firstRecord, bool ended) {
    checkAttentionShapes(run, path, firstRecord);
    int contextShifts = 0;
    for (size_t i = 0; i < run.stages.size(); ++i) {
        const TracedStage& s = run.stages[i];
        const int record = firstRecord + int(i) + 1;
        if (i > 0 && s.step < run.stages[i - 1].step)
            failAt(path, record, s, fmt::format("step {} comes after step {} (record {}): steps never go back", s.step, run.stages[i - 1].step, record - 1));
        checkSequenceIds(run, path, record, s);
        contextShifts += s.contextShift.has_value();
    }
    if (ended) checkEnd(run, path, firstRecord, contextShifts);
}

}  // namespace llama
