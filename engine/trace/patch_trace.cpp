#include "trace/patch_trace.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "io/atomic_output.h"
#include "trace/trace_fields.h"
#include "trace/trace_json.h"
#include "trace/trace_readback.h"

namespace llama {

using nlohmann::json;

double PatchGrid::recovered(int layer, int column) const {
    return (patchedDiff[size_t(layer) * size_t(columns) + size_t(column)] - corruptDiff) / (cleanDiff - corruptDiff);
}

StageId PatchGrid::stage() const {
    if (site == "attention") return StageId::AttentionWo;
    if (site == "head") return StageId::AttentionReshape;
    return StageId::FfnResidual;
}

namespace {
json gridJson(const PatchGrid& g) {
    json rows = json::array();
    for (int l = 0; l < g.layers; ++l)
        rows.push_back(std::vector<double>(g.patchedDiff.begin() + l * g.columns, g.patchedDiff.begin() + (l + 1) * g.columns));
    return {{"site", g.site},
            {"align", g.align},
            {"answer", {{"id", g.answer.id}, {"piece", g.answer.piece}}},
            {"wrong", {{"id", g.wrong.id}, {"piece", g.wrong.piece}}},
            {"cleanDiff", g.cleanDiff},
            {"corruptDiff", g.corruptDiff},
            {"layers", g.layers},
            {"columns", g.columns},
            {"cleanPositions", g.cleanPosition},
            {"corruptPositions", g.corruptPosition},
            {"patchedDiff", rows}};
}

// The grid's fields, each checked; what it must agree with in the runs is checked once they are read.
std::vector<int> positions(const TraceField& list) {
    std::vector<int> out;
    for (size_t i = 0, n = list.list(); i < n; ++i) out.push_back(list[i].integer(0, ModelArgs::kMaxPositions, "a position"));
    return out;
}

// The vocabulary is the runs' (checkAgainstRuns): here only an id a model could have.
TraceToken token(const TraceField& t) {
    TraceToken out;
    out.id = t["id"].integer(0, ModelArgs::kMaxVocab - 1);
    out.piece = t["piece"].text(kMaxTracePieceBytes);
    return out;
}

PatchGrid gridFrom(const TraceField& j) {
    PatchGrid g;
    g.site = j["site"].oneOf({"block", "attention", "head"});
    g.align = j["align"].oneOf({"same", "start", "end"});
    g.answer = token(j["answer"]);
    g.wrong = token(j["wrong"]);
    if (g.answer.id == g.wrong.id)
        throw TraceError(fmt::format("fields 'answer' and 'wrong' are both token {}: expected two tokens, whose logit difference the grid measures",
                                     g.answer.id));
    g.cleanDiff = j["cleanDiff"].finite();
    g.corruptDiff = j["corruptDiff"].finite();
    if (g.cleanDiff == g.corruptDiff) throw TraceError("fields 'cleanDiff' and 'corruptDiff' are equal: no share recovered can be measured");
    g.layers = j["layers"].integer(1, ModelArgs::kMaxLayers);
    g.columns = j["columns"].integer(1, 1 << 20);
    g.cleanPosition = positions(j["cleanPositions"]);
    g.corruptPosition = positions(j["corruptPositions"]);
    const size_t paired = g.heads() ? 0 : size_t(g.columns);
    if (g.cleanPosition.size() != paired || g.corruptPosition.size() != paired)
        throw TraceError(fmt::format("fields 'cleanPositions' and 'corruptPositions' hold {} and {} positions: expected {} ({})",
                                     g.cleanPosition.size(), g.corruptPosition.size(), paired,
                                     g.heads() ? "none for a head grid" : "one per column"));
    const TraceField rows = j["patchedDiff"];
    if (!rows.value().is_array() || rows.value().size() != size_t(g.layers))
        throw TraceError(fmt::format("field 'patchedDiff' has {} rows: expected one per layer ({})", rows.value().is_array() ? rows.value().size() : 0,
                                     g.layers));
    for (size_t l = 0; l < size_t(g.layers); ++l) {
        const TraceField row = rows[l];
        if (!row.value().is_array() || row.value().size() != size_t(g.columns))
            throw TraceError(fmt::format("field 'patchedDiff' row {} has {} values: expected {} (columns)", l,
                                         row.value().is_array() ? row.value().size() : 0, g.columns));
        for (size_t c = 0; c < size_t(g.columns); ++c) g.patchedDiff.push_back(row[c].finite());
    }
    return g;
}

// What the grid says about the runs must be true of them.
void checkAgainstRuns(const PatchGrid& g, const PatchTrace& t, const std::string& path) {
    auto fail = [&](const std::string& what) { throw TraceError(fmt::format("'{}': record 0 (PTCH): {}", path, what)); };
    for (const TraceRun* r : {&t.clean, &t.corrupt})
        if (r->args.n_layers != g.layers) fail(fmt::format("field 'layers' is {}, but the runs' model has {} layers", g.layers, r->args.n_layers));
    if (g.heads() && g.columns != t.clean.args.n_heads)
        fail(fmt::format("field 'columns' is {}, but the model has {} heads", g.columns, t.clean.args.n_heads));
    for (size_t c = 0; c < g.cleanPosition.size(); ++c) {
        if (size_t(g.cleanPosition[c]) >= t.clean.promptTokens.size())
            fail(fmt::format("field 'cleanPositions' column {} is position {}: the clean prompt has {} tokens", c, g.cleanPosition[c],
                             t.clean.promptTokens.size()));
        if (size_t(g.corruptPosition[c]) >= t.corrupt.promptTokens.size())
            fail(fmt::format("field 'corruptPositions' column {} is position {}: the corrupted prompt has {} tokens", c, g.corruptPosition[c],
                             t.corrupt.promptTokens.size()));
    }
    const int vocab = t.clean.args.vocab_size;
    if (g.answer.id >= vocab || g.wrong.id >= vocab) fail(fmt::format("fields 'answer' and 'wrong' must be tokens below {}", vocab));
}

// A whole trace's records, without its header.
std::string runRecords(const std::string& tracePath) {
    const std::string file = readTraceFile(tracePath);
    checkTraceHeader(file, tracePath);
    size_t pos = trace::kHeaderBytes;
    readTraceRun(file, pos, tracePath, trace::kVersion, 0, {}, true, TraceValues::Drop);  // a whole run, or TraceError
    return file.substr(trace::kHeaderBytes);
}
}  // namespace

void writePatchTrace(const std::string& path, const PatchGrid& grid, const std::string& cleanTrace, const std::string& corruptTrace) {
    const std::string clean = runRecords(cleanTrace), corrupt = runRecords(corruptTrace);
    const std::string j = trace::jsonText(gridJson(grid));
    const uint32_t jsonBytes = uint32_t(j.size());
    const uint64_t dataBytes = 0;
    std::string file(trace::kMagic);
    file.append(reinterpret_cast<const char*>(&trace::kVersion), sizeof trace::kVersion);
    file.append(trace::kPatchRecord);
    file.append(reinterpret_cast<const char*>(&jsonBytes), sizeof jsonBytes);
    file.append(reinterpret_cast<const char*>(&dataBytes), sizeof dataBytes);
    file += j + clean + corrupt;
    requireReadsBack(file, path, [](std::string_view b, const std::string& p) { readPatchTraceBytes(b, p); });
    AtomicOutputFile out(path);
    out.stream() << file;
    out.commit();
}

PatchTrace readPatchTrace(const std::string& path) { return readPatchTraceBytes(readTraceFile(path), path); }

PatchTrace readPatchTraceBytes(std::string_view bytes, const std::string& path) {
    PatchTrace t;
    t.version = checkTraceHeader(bytes, path);
    size_t pos = trace::kHeaderBytes;
    if (bytes.size() == pos) throw TraceError(fmt::format("'{}' is truncated: it ends after its header, before the PTCH record", path));
    const TraceRecordView record = nextTraceRecord(bytes, pos, path, 0);
    if (record.kind != trace::kPatchRecord || t.version < 3)
        throw TraceError(fmt::format("'{}' is not an activation-patching trace: its first record is {} (version {}), not PTCH (version 3 on; "
                                     "`llama-walkthrough patch --trace` writes them)",
                                     path, record.kind, t.version));
    try {
        const json j = json::parse(record.json);
        t.grid = gridFrom(TraceField(j));
    } catch (const json::exception& e) {
        throw TraceError(fmt::format("'{}': record 0 (PTCH) is malformed: {}", path, e.what()));
    } catch (const TraceError& e) {
        throw TraceError(fmt::format("'{}': record 0 (PTCH): {}", path, e.what()));
    }
    t.clean = readTraceRun(bytes, pos, path, t.version, 1);
    t.corrupt = readTraceRun(bytes, pos, path, t.version, 2 + int(t.clean.stages.size()) + 1);
    if (pos != bytes.size()) throw TraceError(fmt::format("'{}': {} unexpected bytes after the corrupted run's END record", path, bytes.size() - pos));
    checkAgainstRuns(t.grid, t, path);
    return t;
}

bool isPatchTrace(const std::string& path) {
    // Opening a FIFO would wait for a writer: what is not a regular file is left to the reader to refuse.
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
    std::ifstream in(path, std::ios::binary);
    char head[trace::kHeaderBytes + 4] = {};
    if (!in.read(head, sizeof head)) return false;
    return std::string_view(head, trace::kMagic.size()) == trace::kMagic && std::string_view(head + trace::kHeaderBytes, 4) == trace::kPatchRecord;
}

}  // namespace llama
