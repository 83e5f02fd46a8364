#include "trace/batch_trace_reader.h"

#include <fmt/format.h>

#include <set>

#include "trace/trace_fields.h"

namespace llama {

namespace {

// Sequence ids are cells' owners: at most one per cell of the context, each once.
std::vector<int> seqIds(const TraceField& at, const ModelArgs& args) {
    std::vector<int> ids;
    const size_t n = at.list(size_t(args.max_seq_len));
    for (size_t i = 0; i < n; ++i) ids.push_back(at[i].integer(0, args.max_seq_len - 1));
    at.expect(std::set<int>(ids.begin(), ids.end()).size() == ids.size(), "a sequence id is listed twice");
    return ids;
}

// Cells [0, n): a free cell (pos -1) belongs to no sequence, a used one to at least one.
std::vector<TracedCell> cells(const TraceField& at, const ModelArgs& args) {
    std::vector<TracedCell> out;
    const size_t n = at.list(size_t(args.max_seq_len));
    for (size_t i = 0; i < n; ++i) {
        TracedCell c{at[i]["pos"].integer(-1, args.max_seq_len - 1), seqIds(at[i]["seqIds"], args)};
        at[i].expect(c.free() == c.seqIds.empty(), c.free() ? "a free cell (pos -1) holds sequences" : "a used cell belongs to no sequence");
        out.push_back(std::move(c));
    }
    return out;
}

TracedUBatch ubatch(const TraceField& b, const ModelArgs& args) {
    TracedUBatch u{b["ubatch"].integer(0, INT32_MAX), b["nTokens"].integer(1, args.max_seq_len), b["nSeqs"].integer(1, args.max_seq_len),
                   b["nOutputs"].integer(0, args.max_seq_len), {}};
    const TraceField tokens = b["tokens"];
    const size_t n = tokens.list(size_t(args.max_seq_len));
    tokens.expect(n == size_t(u.nTokens), fmt::format("{} tokens listed: expected nTokens = {}", n, u.nTokens));
    std::set<int> seqs;
    int outputs = 0;
    for (size_t i = 0; i < n; ++i) {
        TracedBatchToken t{readTraceToken(tokens[i], args), tokens[i]["pos"].integer(0, args.max_seq_len - 1), seqIds(tokens[i]["seqIds"], args),
                           tokens[i]["output"].boolean()};
        tokens[i]["seqIds"].expect(!t.seqIds.empty(), "a token belongs to no sequence");
        seqs.insert(t.seqIds.begin(), t.seqIds.end());
        outputs += t.output;
        u.tokens.push_back(std::move(t));
    }
    b.expect(int(seqs.size()) == u.nSeqs, fmt::format("nSeqs is {} but the tokens belong to {} sequences", u.nSeqs, seqs.size()));
    b.expect(outputs == u.nOutputs, fmt::format("nOutputs is {} but {} of the tokens want their logits", u.nOutputs, outputs));
    return u;
}

TracedKvSlot kvSlot(const TraceField& b, const ModelArgs& args) {
    TracedKvSlot k;
    k.size = b["size"].integer(1, args.max_seq_len);
    k.nKV = b["nKV"].integer(0, k.size);
    k.nTokens = b["nTokens"].integer(1, k.size);
    k.head = b["head"].integer(0, k.size - k.nTokens);
    k.used = b["used"].integer(0, k.nKV);
    k.cells = cells(b["cells"], args);
    b["cells"].expect(k.cells.size() == size_t(k.nKV), fmt::format("{} cells listed: expected nKV = {}", k.cells.size(), k.nKV));
    const auto used = std::count_if(k.cells.begin(), k.cells.end(), [](const TracedCell& c) { return !c.free(); });
    b["used"].expect(used == k.used, fmt::format("used is {} but {} of the cells hold a position", k.used, used));
    b["head"].expect(k.head + k.nTokens <= k.nKV, fmt::format("the slot [{}, {}) lies past nKV = {}", k.head, k.head + k.nTokens, k.nKV));
    return k;
}

TracedContextShift contextShift(const TraceField& b, const ModelArgs& args) {
    return {b["seq"].integer(0, args.max_seq_len - 1), b["nPast"].integer(0, args.max_seq_len), b["nKeep"].integer(0, args.max_seq_len),
            b["nDiscard"].integer(0, args.max_seq_len), cells(b["before"], args), cells(b["after"], args)};
}

}  // namespace

TraceBatchInfo readBatchMeta(const TraceField& b) {
    TraceBatchInfo info;
    const TraceField prompts = b["prompts"];
    const size_t n = prompts.list(ModelArgs::kMaxPositions);
    for (size_t i = 0; i < n; ++i) info.prompts.push_back(prompts[i].text(kMaxTraceTextBytes));
    info.parallel = b["parallel"].integer(1, 256);
    info.ubatch = b["ubatch"].integer(1, 8192);
    info.contextShift = b["contextShift"].boolean();
    info.keep = b["keep"].integer(0, ModelArgs::kMaxPositions);
    return info;
}

void readBatchStage(const TraceField& b, TracedStage& s, const ModelArgs& args) {
    switch (s.stage) {
        case StageId::UBatchTokens: s.ubatch = ubatch(b, args); break;
        case StageId::KvSlot: s.kvSlot = kvSlot(b, args); break;
        case StageId::ContextShift: s.contextShift = contextShift(b, args); break;
        default: throw TraceError(fmt::format("field 'batch' belongs to the stages ubatch, kv_slot and context_shift, not {}", s.info().key));
    }
}

std::vector<TracedSequence> readBatchSequences(const TraceField& at, const ModelArgs& args, int maxTokens) {
    std::vector<TracedSequence> out;
    const size_t n = at.list(ModelArgs::kMaxPositions);
    for (size_t i = 0; i < n; ++i) {
        const TraceField s = at[i];
        out.push_back({s["prompt"].text(kMaxTraceTextBytes), readTraceTokens(s["promptTokens"], args, args.max_seq_len),
                       readTraceTokens(s["generatedTokens"], args, maxTokens, "META's run.maxTokens"), s["text"].text(kMaxTraceTextBytes),
                       s["stopReason"].text(kMaxTracePieceBytes), s["contextShifts"].integer(0, INT32_MAX)});
    }
    return out;
}

}  // namespace llama
