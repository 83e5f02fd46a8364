#include "trace/batch_trace_reader.h"

#include <fmt/format.h>

#include <set>

namespace llama {

using nlohmann::json;

namespace {

// A JSON value with its path from the record ("batch.cells[3].pos"), so that every error names it.
struct At {
    const json& value;
    std::string path;

    At operator[](const char* key) const {
        if (!value.is_object()) throw TraceError(fmt::format("field '{}' is {}: expected an object", path, value.type_name()));
        const auto it = value.find(key);
        if (it == value.end()) throw TraceError(fmt::format("field '{}.{}' is missing", path, key));
        return {*it, path + "." + key};
    }
    At operator[](size_t i) const { return {value[i], fmt::format("{}[{}]", path, i)}; }
    const json& list(size_t maxSize) const {
        if (!value.is_array()) throw TraceError(fmt::format("field '{}' is {}: expected an array", path, value.type_name()));
        if (value.size() > maxSize) throw TraceError(fmt::format("field '{}' has {} entries: expected at most {}", path, value.size(), maxSize));
        return value;
    }
    int integer(int64_t lo, int64_t hi) const {
        if (!value.is_number_integer() || value.get<int64_t>() < lo || value.get<int64_t>() > hi)
            throw TraceError(fmt::format("field '{}' is {}: expected a whole number from {} to {}", path, value.dump(), lo, hi));
        return int(value.get<int64_t>());
    }
    bool boolean() const {
        if (!value.is_boolean()) throw TraceError(fmt::format("field '{}' is {}: expected true or false", path, value.dump()));
        return value.get<bool>();
    }
    std::string text(size_t maxBytes) const {
        if (!value.is_string() || value.get_ref<const std::string&>().size() > maxBytes)
            throw TraceError(fmt::format("field '{}': expected a string of at most {} bytes", path, maxBytes));
        return value.get<std::string>();
    }
    void expect(bool ok, const std::string& what) const {
        if (!ok) throw TraceError(fmt::format("field '{}': {}", path, what));
    }
};

constexpr size_t kMaxTextBytes = 1024 * 1024, kMaxPieceBytes = 1024;

// Sequence ids are cells' owners: at most one per cell of the context, each once.
std::vector<int> seqIds(const At& at, const ModelArgs& args) {
    std::vector<int> ids;
    const json& list = at.list(size_t(args.max_seq_len));
    for (size_t i = 0; i < list.size(); ++i) ids.push_back(at[i].integer(0, args.max_seq_len - 1));
    at.expect(std::set<int>(ids.begin(), ids.end()).size() == ids.size(), "a sequence id is listed twice");
    return ids;
}

TraceToken token(const At& at, const ModelArgs& args) {
    return {at["id"].integer(0, args.vocab_size - 1), at["piece"].text(kMaxPieceBytes), at["special"].boolean()};
}

std::vector<TraceToken> tokenList(const At& at, const ModelArgs& args) {
    std::vector<TraceToken> out;
    const json& list = at.list(size_t(args.max_seq_len));
    for (size_t i = 0; i < list.size(); ++i) out.push_back(token(at[i], args));
    return out;
}

// Cells [0, n): a free cell (pos -1) belongs to no sequence, a used one to at least one.
std::vector<TracedCell> cells(const At& at, const ModelArgs& args) {
    std::vector<TracedCell> out;
    const json& list = at.list(size_t(args.max_seq_len));
    for (size_t i = 0; i < list.size(); ++i) {
        TracedCell c{at[i]["pos"].integer(-1, args.max_seq_len - 1), seqIds(at[i]["seqIds"], args)};
        at[i].expect(c.free() == c.seqIds.empty(), c.free() ? "a free cell (pos -1) holds sequences" : "a used cell belongs to no sequence");
        out.push_back(std::move(c));
    }
    return out;
}

TracedUBatch ubatch(const At& b, const ModelArgs& args) {
    TracedUBatch u{b["ubatch"].integer(0, INT32_MAX), b["nTokens"].integer(1, args.max_seq_len), b["nSeqs"].integer(1, args.max_seq_len),
                   b["nOutputs"].integer(0, args.max_seq_len), {}};
    const At tokens = b["tokens"];
    const json& list = tokens.list(size_t(args.max_seq_len));
    tokens.expect(list.size() == size_t(u.nTokens), fmt::format("{} tokens listed: expected nTokens = {}", list.size(), u.nTokens));
    std::set<int> seqs;
    int outputs = 0;
    for (size_t i = 0; i < list.size(); ++i) {
        TracedBatchToken t{token(tokens[i], args), tokens[i]["pos"].integer(0, args.max_seq_len - 1), seqIds(tokens[i]["seqIds"], args),
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

TracedKvSlot kvSlot(const At& b, const ModelArgs& args) {
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

TracedContextShift contextShift(const At& b, const ModelArgs& args) {
    return {b["seq"].integer(0, args.max_seq_len - 1), b["nPast"].integer(0, args.max_seq_len), b["nKeep"].integer(0, args.max_seq_len),
            b["nDiscard"].integer(0, args.max_seq_len), cells(b["before"], args), cells(b["after"], args)};
}

}  // namespace

TraceBatchInfo readBatchMeta(const json& j) {
    const At b{j, "batch"};
    TraceBatchInfo info;
    const At prompts = b["prompts"];
    const json& list = prompts.list(ModelArgs::kMaxPositions);
    for (size_t i = 0; i < list.size(); ++i) info.prompts.push_back(prompts[i].text(kMaxTextBytes));
    info.parallel = b["parallel"].integer(1, 256);
    info.ubatch = b["ubatch"].integer(1, 8192);
    info.contextShift = b["contextShift"].boolean();
    info.keep = b["keep"].integer(0, ModelArgs::kMaxPositions);
    return info;
}

void readBatchStage(const json& j, TracedStage& s, const ModelArgs& args) {
    const At b{j, "batch"};
    switch (s.stage) {
        case StageId::UBatchTokens: s.ubatch = ubatch(b, args); break;
        case StageId::KvSlot: s.kvSlot = kvSlot(b, args); break;
        case StageId::ContextShift: s.contextShift = contextShift(b, args); break;
        default: throw TraceError(fmt::format("field 'batch' belongs to the stages ubatch, kv_slot and context_shift, not {}", s.info().key));
    }
}

std::vector<TracedSequence> readBatchSequences(const json& j, const ModelArgs& args) {
    const At at{j, "sequences"};
    std::vector<TracedSequence> out;
    const json& list = at.list(ModelArgs::kMaxPositions);
    for (size_t i = 0; i < list.size(); ++i) {
        const At s = at[i];
        out.push_back({s["prompt"].text(kMaxTextBytes), tokenList(s["promptTokens"], args), tokenList(s["generatedTokens"], args),
                       s["text"].text(kMaxTextBytes), s["stopReason"].text(kMaxPieceBytes), s["contextShifts"].integer(0, INT32_MAX)});
    }
    return out;
}

}  // namespace llama
