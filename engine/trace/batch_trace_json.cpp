#include "trace/batch_trace_json.h"

#include <string_view>

#include "trace/trace_json.h"

namespace llama::trace {

using nlohmann::json;

namespace {

int64_t numberField(const StageEvent& e, std::string_view name) {
    for (const StageField& f : e.fields)
        if (name == f.name)
            if (const auto* v = std::get_if<int64_t>(&f.value)) return *v;
    return 0;
}

bool hasValues(const Tensor* t) { return t && t->hasData(); }

// Row `row` of an I32 [rows, width] tensor padded with -1: one token's or cell's sequences.
json seqIdsOf(const Tensor& seqs, int64_t row) {
    json ids = json::array();
    for (int64_t j = 0; j < seqs.dim(1); ++j)
        if (const int s = int(seqs.floatAt(row * seqs.dim(1) + j)); s >= 0) ids.push_back(s);
    return ids;
}

// Cells [0, n) as [{"pos", "seqIds"}], pos -1 for a free cell.
json cellsJson(const Tensor& positions, const Tensor& seqs, int64_t n) {
    json cells = json::array();
    for (int64_t i = 0; i < n; ++i) cells.push_back({{"pos", int(positions.floatAt(i))}, {"seqIds", seqIdsOf(seqs, i)}});
    return cells;
}

// One past the last cell holding a position (n_kv).
int64_t usedCells(const Tensor& positions) {
    for (int64_t i = positions.numel(); i > 0; --i)
        if (positions.floatAt(i - 1) >= 0) return i;
    return 0;
}

json ubatchJson(const StageEvent& e, const Tokenizer& tokenizer) {
    const Tensor *ids = e.tensorField("inputTokens"), *positions = e.tensorField("positions"), *seqs = e.tensorField("seqIds"),
                 *outputs = e.tensorField("outputs");
    if (!hasValues(ids) || !hasValues(positions) || !hasValues(seqs) || !hasValues(outputs)) return nullptr;
    json tokens = json::array();
    for (int64_t i = 0; i < ids->numel(); ++i) {
        json t = tokenJson(tokenizer, int32_t(ids->floatAt(i)));
        t["pos"] = int(positions->floatAt(i));
        t["seqIds"] = seqIdsOf(*seqs, i);
        t["output"] = outputs->floatAt(i) != 0;
        tokens.push_back(std::move(t));
    }
    return {{"ubatch", numberField(e, "ubatch")},
            {"nTokens", numberField(e, "nTokens")},
            {"nSeqs", numberField(e, "nSeqs")},
            {"nOutputs", numberField(e, "nOutputs")},
            {"tokens", std::move(tokens)}};
}

json kvSlotJson(const StageEvent& e) {
    const Tensor *positions = e.tensorField("cellPos"), *seqs = e.tensorField("cellSeqIds");
    const int64_t nKV = numberField(e, "nKV");
    if (!hasValues(positions) || !hasValues(seqs) || positions->numel() < nKV || seqs->dim(0) < nKV) return nullptr;
    return {{"head", numberField(e, "head")}, {"nTokens", numberField(e, "nTokens")}, {"used", numberField(e, "used")},
            {"size", numberField(e, "size")}, {"nKV", nKV},                           {"cells", cellsJson(*positions, *seqs, nKV)}};
}

json contextShiftJson(const StageEvent& e) {
    const Tensor *before = e.tensorField("before"), *after = e.tensorField("after"), *seqsBefore = e.tensorField("seqsBefore"),
                 *seqsAfter = e.tensorField("seqsAfter");
    if (!hasValues(before) || !hasValues(seqsBefore) || !hasValues(after) || !hasValues(seqsAfter)) return nullptr;
    return {{"seq", numberField(e, "seq")},
            {"nPast", numberField(e, "nPast")},
            {"nKeep", numberField(e, "nKeep")},
            {"nDiscard", numberField(e, "nDiscard")},
            {"before", cellsJson(*before, *seqsBefore, usedCells(*before))},
            {"after", cellsJson(*after, *seqsAfter, usedCells(*after))}};
}

}  // namespace

bool recordsBatch(StageId stage) { return stage == StageId::UBatchTokens || stage == StageId::KvSlot || stage == StageId::ContextShift; }

json batchStageJson(const StageEvent& e, const Tokenizer& tokenizer) {
    switch (e.stage) {
        case StageId::UBatchTokens: return ubatchJson(e, tokenizer);
        case StageId::KvSlot: return kvSlotJson(e);
        case StageId::ContextShift: return contextShiftJson(e);
        default: return nullptr;
    }
}

json batchMetaJson(const TraceBatchInfo& b) {
    return {{"prompts", b.prompts}, {"parallel", b.parallel}, {"ubatch", b.ubatch}, {"contextShift", b.contextShift}, {"keep", b.keep}};
}

json batchSequencesJson(const std::vector<SequenceResult>& sequences, const std::vector<std::string>& prompts, const Tokenizer& tokenizer) {
    json out = json::array();
    for (size_t i = 0; i < sequences.size(); ++i) {
        const SequenceResult& s = sequences[i];
        json prompt = json::array(), generated = json::array();
        for (int32_t id : s.promptTokens) prompt.push_back(tokenJson(tokenizer, id));
        for (int32_t id : s.generatedTokens) generated.push_back(tokenJson(tokenizer, id));
        out.push_back({{"prompt", i < prompts.size() ? prompts[i] : ""},
                       {"promptTokens", std::move(prompt)},
                       {"generatedTokens", std::move(generated)},
                       {"text", s.text},
                       {"stopReason", describe(s.stopReason)},
                       {"contextShifts", s.contextShifts}});
    }
    return out;
}

}  // namespace llama::trace
