#include "trace/trace_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

#include "io/input_file.h"
#include "tensor/bfloat16.h"
#include "trace/batch_trace_reader.h"
#include "trace/trace_consistency.h"
#include "trace/trace_fields.h"
#include "trace/trace_format.h"

namespace llama {

using nlohmann::json;

const TracedTensor* TracedStage::tensor(std::string_view name) const {
    for (const auto& t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

std::vector<int> TraceRun::cacheFill(size_t stageIndex) const {
    std::vector<int> fill(size_t(std::max(args.n_layers, 0)), 0);
    for (size_t i = 0; i <= stageIndex && i < stages.size(); ++i)
        if (stages[i].cacheFilled && stages[i].layer >= 0 && stages[i].layer < int(fill.size()))
            fill[stages[i].layer] = *stages[i].cacheFilled;
    return fill;
}

namespace {
// Everything the viewer and replay index with is checked here, so a hostile trace is refused
// with the record and field named instead of crashing them.
constexpr size_t kMaxMessageBytes = 64 * 1024;
constexpr int64_t kMaxElements = int64_t(1) << 36;  // 64 G elements: beyond any stored or shown tensor
constexpr size_t kMaxRank = 8;

Shape shapeFrom(const TraceField& f) {
    Shape shape;
    int64_t elements = 1;
    for (size_t i = 0, rank = f.list(kMaxRank); i < rank; ++i) {
        const int64_t n = f[i].integer64(0, kMaxElements);
        if (n && elements > kMaxElements / n) f.unexpected(fmt::format("a shape of at most {} elements", kMaxElements));
        elements *= n;
        shape.push_back(n);
    }
    return shape;
}

DType dtypeFrom(const TraceField& f) {
    constexpr DType kTraced[] = {DType::F32, DType::BF16, DType::Complex64, DType::I32};
    for (DType t : kTraced)
        if (f.value() == dtypeName(t)) return t;
    f.unexpected(fmt::format("\"{}\", \"{}\", \"{}\" or \"{}\"", dtypeName(kTraced[0]), dtypeName(kTraced[1]), dtypeName(kTraced[2]), dtypeName(kTraced[3])));
}

ModelArgs argsFrom(const TraceField& j) {
    ModelArgs a;
    auto field = [&](const char* key) { return j[key].integer(INT32_MIN, INT32_MAX); };
    a.dim = field("dim");
    a.n_layers = field("n_layers");
    a.n_heads = field("n_heads");
    a.n_kv_heads = field("n_kv_heads");
    a.vocab_size = field("vocab_size");
    a.multiple_of = field("multiple_of");
    if (const auto m = j.nullable("ffn_dim_multiplier")) a.ffn_dim_multiplier = m->number();
    a.norm_eps = j["norm_eps"].number();
    a.rope_theta = j["rope_theta"].number();
    a.use_scaled_rope = j["use_scaled_rope"].boolean();
    a.max_seq_len = field("max_seq_len");
    try {
        a.validate("model.args");
    } catch (const std::invalid_argument& e) {
        throw TraceError(e.what());
    }
    return a;
}

// Version 1 traces predate the what-if switches: they are runs of the model itself.
WhatIf whatIfFrom(const TraceField& j, const ModelArgs& args) {
    WhatIf w;
    w.noMask = j["noMask"].boolean();
    w.noKvCache = j["noKvCache"].boolean();
    w.noRope = j["noRope"].boolean();
    if (const auto theta = j.nullable("ropeTheta")) w.ropeTheta = theta->number();
    const TraceField heads = j["ablateHeads"];
    for (size_t i = 0, n = heads.list(); i < n; ++i) {
        const TraceField h = heads[i];
        if (!h.value().is_array() || h.value().size() != 2) h.unexpected("a [layer, head] pair");
        w.ablateHeads.insert({h[0].integer(0, args.n_layers - 1, "a layer"), h[1].integer(0, args.n_heads - 1, "a head")});
    }
    // Traces written before --compute-dtype existed have no such field: the model's own dtype.
    if (const auto dtype = j.optional("computeDType")) {
        if (!dtype->value().is_string()) dtype->unexpected("\"bf16\", \"f32\" or null");
        try {
            w.computeDType = parseComputeDType(dtype->value().get<std::string>());
        } catch (const std::invalid_argument& e) {
            dtype->fail(e.what());
        }
    }
    // Traces written before control vectors existed have no such field.
    if (const auto cv = j.optional("controlVectors")) {
        auto steering = std::make_shared<Steering>();
        const TraceField files = (*cv)["files"];
        for (size_t i = 0, n = files.list(); i < n; ++i)
            steering->files.push_back({files[i]["path"].text(kMaxTracePieceBytes * 4), float(files[i]["scale"].number())});
        if (const auto layers = cv->nullable("layers")) {
            if (!layers->value().is_array() || layers->value().size() != 2) layers->unexpected("[first, last] or null");
            steering->layers = std::pair{(*layers)[0].integer(1, args.n_layers, "a layer"), (*layers)[1].integer(1, args.n_layers, "a layer")};
        }
        w.steering = std::move(steering);
    }
    const TraceField skip = j["skipLayers"];
    for (size_t i = 0, n = skip.list(); i < n; ++i) w.skipLayers.insert(skip[i].integer(0, args.n_layers - 1, "a layer"));
    try {
        w.validate(args.n_layers, args.n_heads);
    } catch (const std::invalid_argument& e) {
        throw TraceError(fmt::format("whatIf: {}", e.what()));
    }
    return w;
}

void requireBatchVersion(uint32_t version) {
    if (version < trace::kFirstBatchVersion)
        throw TraceError(fmt::format("field 'batch': a version {} trace records one sequence; batches came in version {}", version,
                                     trace::kFirstBatchVersion));
}

void readMeta(const TraceField& j, TraceRun& run) {
    const TraceField model = j["model"];
    run.modelFormat = model["format"].text(kMaxTracePieceBytes);
    run.modelPath = model["path"].text(kMaxTracePieceBytes * 4);
    run.args = argsFrom(model["args"]);
    const TraceField r = j["run"];
    run.run.prompt = r["prompt"].text(kMaxTraceTextBytes);
    run.run.maxTokens = r["maxTokens"].integer(0, ModelArgs::kMaxPositions);
    SamplingSettings& sampling = run.run.sampling;
    sampling.temperature = float(r["temperature"].number());
    sampling.topK = r["topK"].integer(0, ModelArgs::kMaxVocab);
    sampling.topP = float(r["topP"].number());
    // minP came later in version 1: absent means off.
    sampling.minP = r.has("minP") ? float(r["minP"].number()) : 0.0f;
    if (!(sampling.minP >= 0.0f && sampling.minP <= 1.0f)) throw TraceError(fmt::format("run: minP {} must be in [0, 1]", sampling.minP));
    // A seed is unsigned: -1 must not pass for 2^64-1.
    const TraceField seed = r["seed"];
    if (!seed.value().is_number_unsigned()) seed.unexpected(fmt::format("a whole number from 0 to {}", UINT64_MAX));
    sampling.seed = seed.value().get<uint64_t>();
    // The penalties came later in version 1: all four or none (a run without them).
    const char* penalties[] = {"repeatPenalty", "repeatLastN", "frequencyPenalty", "presencePenalty"};
    const int present = int(std::count_if(std::begin(penalties), std::end(penalties), [&](const char* k) { return r.has(k); }));
    if (present != 0 && present != 4) throw TraceError("run: the penalties repeatPenalty, repeatLastN, frequencyPenalty and presencePenalty come together");
    if (present) {
        sampling.repeatPenalty = float(r["repeatPenalty"].number());
        sampling.repeatLastN = r["repeatLastN"].integer(-1, INT32_MAX);
        sampling.frequencyPenalty = float(r["frequencyPenalty"].number());
        sampling.presencePenalty = float(r["presencePenalty"].number());
    }
    // Mirostat and the grammar came later in version 2: absent means off.
    if (r.has("mirostat")) {
        sampling.mirostat = r["mirostat"].integer(0, 2);
        sampling.mirostatTau = float(r["mirostatTau"].number());
        sampling.mirostatEta = float(r["mirostatEta"].number());
    }
    if (const auto grammar = r.optional("grammar")) run.run.grammar = grammar->text(4096);
    try {
        validateSamplingSettings(sampling);
    } catch (const std::invalid_argument& e) {
        throw TraceError(std::string("run: ") + e.what());
    }
    run.run.dryRun = r["dryRun"].boolean();
    const TraceField t = j["trace"];
    run.options.summaries = t["summaries"].boolean();
    // "all", or the 0-based layers whose scores were stored.
    if (const TraceField layers = t["attentionLayers"]; layers.value().is_array()) {
        run.options.attentionLayers.emplace();
        for (size_t i = 0, n = layers.list(); i < n; ++i) run.options.attentionLayers->insert(layers[i].integer(0, run.args.n_layers - 1, "a layer"));
    } else if (layers.value() != "all") {
        layers.unexpected("\"all\" or an array of layers");
    }
    run.options.preSoftmax = t["preSoftmax"].boolean();
    run.options.maxPositions = t["maxPositions"].integer(0, ModelArgs::kMaxPositions);
    run.options.topK = t["topK"].integer(0, ModelArgs::kMaxVocab);
    if (run.version >= 2) {
        run.run.whatIf = whatIfFrom(j["whatIf"], run.args);
        run.options.residual = t["residual"].boolean();
        run.options.lensTopK = t["lensTopK"].integer(0, ModelArgs::kMaxVocab);
    } else {
        run.options.residual = false;
        run.options.lensTopK = 0;
    }
    if (j.has("batch")) {
        requireBatchVersion(run.version);
        run.run.batch = readBatchMeta(j["batch"]);
    }
    if (j.has("training")) {
        if (run.version < trace::kFirstTrainingVersion)
            throw TraceError(fmt::format("field 'training': a version {} trace records inference; training steps came in version {}", run.version,
                                         trace::kFirstTrainingVersion));
        if (run.run.batch) throw TraceError("field 'training' beside 'batch': a training trace records one window");
        const TraceField t = j["training"];
        TraceTrainingInfo training;
        training.step = t["step"].integer(1, INT32_MAX, "a training step from 1");
        training.windows = t["windows"].integer(1, INT32_MAX, "a count of windows");
        training.window = t["window"].integer(0, training.windows - 1, "one of the step's windows");
        training.learningRate = t["learningRate"].traceFloat();
        run.run.training = training;
    }
}

// bf16 or i32 bytes from the record's data part -> an F32 tensor of `shape`. With "repeat" (version
// 5: a GQA model's keys), the first dimension's blocks are stored once per group of that many
// alike ones in a row, and read back repeated.
Tensor valuesFrom(const TraceField& v, const Shape& shape, std::string_view data, uint32_t version) {
    const std::string encoding = v["encoding"].oneOf({"bf16", "i32"});
    const uint64_t offset = uint64_t(v["offset"].integer64(0, INT64_MAX)), bytes = uint64_t(v["bytes"].integer64(0, INT64_MAX));
    const size_t elementBytes = encoding == "bf16" ? 2 : 4;
    int64_t repeat = 1;
    if (v.has("repeat")) {
        if (version < trace::kFirstRepeatVersion)
            v["repeat"].fail(fmt::format("a version {} trace stores every head's values; stored repeats came in version {}", version,
                                         trace::kFirstRepeatVersion));
        if (shape.size() != 3) v["repeat"].fail(fmt::format("only a tensor of rank 3 repeats its heads, not one of shape {}", shapeToString(shape)));
        repeat = v["repeat"].integer(2, int(std::min<int64_t>(shape[0], INT32_MAX)), "a number of alike heads in a row");
        if (shape[0] % repeat) v["repeat"].fail(fmt::format("{} does not divide the {} heads of shape {}", repeat, shape[0], shapeToString(shape)));
    }
    if (bytes != uint64_t(shapeNumel(shape) / repeat) * elementBytes)
        v["bytes"].fail(repeat > 1 ? fmt::format("{} bytes of {} values do not fit shape {} stored once per {} heads", bytes, encoding,
                                                 shapeToString(shape), repeat)
                                   : fmt::format("{} bytes of {} values do not fit shape {}", bytes, encoding, shapeToString(shape)));
    if (offset > data.size() || bytes > data.size() - offset)
        v.fail(fmt::format("values at [{}, {}) lie outside the record's {} data bytes", offset, offset + bytes, data.size()));
    Tensor t(shape, DType::F32);
    float* out = t.mutableData<float>();
    const char* in = data.data() + offset;
    const int64_t block = shape.empty() ? 1 : shapeNumel(shape) / shape[0];
    for (int64_t i = 0, n = t.numel(); i < n; ++i) {
        // Element i of head h reads head h's stored group.
        const int64_t from = repeat > 1 ? (i / block / repeat) * block + i % block : i;
        if (elementBytes == 2) {
            uint16_t b;
            std::memcpy(&b, in + from * 2, 2);
            out[i] = BFloat16::toFloat(b);
        } else {
            int32_t id;
            std::memcpy(&id, in + from * 4, 4);
            out[i] = float(id);
        }
    }
    return t;
}

// What the viewer's panels index: scores are [heads, rows, positions], the mask [rows, positions].
void checkRank(const TracedTensor& t, const ModelArgs& args) {
    if (t.name == "scores" || t.name == "xqMatMulKeys") {
        if (t.shape.size() != 3 || t.shape[0] != args.n_heads)
            throw TraceError(fmt::format("tensor '{}' has shape {}: expected [{} heads, rows, positions]", t.name, shapeToString(t.shape),
                                         args.n_heads));
    } else if (t.name == "mask" && t.shape.size() != 2) {
        throw TraceError(fmt::format("tensor 'mask' has shape {}: expected [rows, positions]", shapeToString(t.shape)));
    } else if ((t.name == "tokens" || t.name == "inputTokens") && t.shape.size() != 1) {
        throw TraceError(fmt::format("tensor '{}' has shape {}: expected [positions]", t.name, shapeToString(t.shape)));
    }
}

// A mask adds 0 where a query may attend and -inf where it may not: any other value would
// change the scores it is added to, which no replay of the run shows.
void checkMaskValues(const TracedTensor& t) {
    if (!t.hasValues()) return;
    const int64_t columns = t.shape.at(1);
    for (int64_t i = 0, n = t.values.numel(); i < n; ++i)
        if (const float v = t.values.data<float>()[i]; v != 0 && v != -std::numeric_limits<float>::infinity())
            throw TraceError(fmt::format("tensor 'mask' holds {} at row {}, column {}: expected 0 or -inf", v, i / columns, i % columns));
}

// A "top" or "lens" list: ids in the vocabulary, probabilities in [0, 1].
// At most `maxCount` of them (the trace's --trace-top-k or --trace-lens-top-k).
std::vector<TraceTopToken> topTokens(const TraceField& list, const ModelArgs& args, int maxCount) {
    const size_t n = list.list();
    if (int64_t(n) > maxCount) list.fail(fmt::format("{} tokens listed, but the trace's settings keep at most {}", n, maxCount));
    std::vector<TraceTopToken> out;
    for (size_t i = 0; i < n; ++i) {
        const TraceField p = list[i];
        TraceTopToken t{p["id"].integer(0, args.vocab_size - 1), p["piece"].text(kMaxTracePieceBytes), p["logit"].traceFloat(),
                        p["probability"].traceFloat()};
        if (!(t.probability >= 0 && t.probability <= 1)) p["probability"].unexpected("a probability in [0, 1]");
        out.push_back(std::move(t));
    }
    return out;
}

TracedStage readStage(const TraceField& j, std::string_view data, const TraceRun& run) {
    const ModelArgs& args = run.args;
    TracedStage s;
    const std::string key = j["stage"].text(kMaxTracePieceBytes);
    const StageInfo* info = findStage(key);
    if (!info) j["stage"].unexpected("a stage of the catalog (stages.def)");
    s.stage = info->id;
    if (isTrainingStage(s.stage) && !run.run.training)
        j["stage"].unexpected(fmt::format("a stage of inference: {} is a training stage, and META has no 'training'", key));
    s.layer = info->inBlock ? j["layer"].integer(0, args.n_layers - 1, "a layer") : -1;
    if (const TraceField layer = j["layer"]; !info->inBlock && !(layer.value().is_number_integer() && layer.value() == -1))
        layer.unexpected(fmt::format("-1: stage {} is outside the blocks", key));
    s.step = j["step"].integer(0, maxTraceStep(run), "a step of the run");
    s.startPos = j["startPos"].integer(0, args.max_seq_len);
    s.message = j["message"].text(kMaxMessageBytes);
    const TraceField tensors = j["tensors"];
    for (size_t i = 0, n = tensors.list(); i < n; ++i) {
        const TraceField d = tensors[i];
        TracedTensor t;
        t.name = d["name"].text(kMaxTracePieceBytes);
        t.shape = shapeFrom(d["shape"]);
        checkRank(t, args);
        t.dtype = dtypeFrom(d["dtype"]);
        if (d.has("stats")) {
            const TraceField st = d["stats"];
            TensorStats stats{st["min"].traceFloat(), st["max"].traceFloat(), st["mean"].traceFloat(), st["negInf"].integer64(0, kMaxElements), {}};
            const TraceField first = st["first"];
            for (size_t v = 0, count = first.list(64); v < count; ++v) stats.first.push_back(first[v].traceFloat());
            t.stats = stats;
        }
        if (d.has("values")) t.values = valuesFrom(d["values"], t.shape, data, run.version);
        if ((s.stage == StageId::Mask || s.stage == StageId::KvMask) && t.name == "mask") checkMaskValues(t);
        if (d.has("tokens")) {
            t.tokens = readTraceTokens(d["tokens"], args, args.max_seq_len);
            // Token ids fill a row of at most the context length, from its start.
            if (t.shape.size() != 1 || t.shape[0] > args.max_seq_len || int64_t(t.tokens.size()) > t.shape[0])
                throw TraceError(fmt::format("tensor '{}' of shape {} lists {} tokens: expected a row of at most {} positions holding them",
                                             t.name, shapeToString(t.shape), t.tokens.size(), args.max_seq_len));
        }
        s.tensors.push_back(std::move(t));
    }
    if (j.has("top")) s.top = topTokens(j["top"], args, run.options.topK);
    if (j.has("topPenalized")) {
        if (!j.has("top")) throw TraceError("topPenalized without top");
        s.topPenalized = topTokens(j["topPenalized"], args, run.options.topK);
    }
    if (j.has("lens")) {
        const TraceField lens = j["lens"];
        const TracedTensor* residual = s.tensor("output");
        if (s.stage != StageId::FfnResidual || !residual || residual->shape.size() != 2 || !lens.value().is_array() ||
            lens.value().size() != size_t(residual->shape[0]))
            throw TraceError("field 'lens' belongs to ffn_residual stages, one list of top tokens per row of its output");
        for (size_t i = 0, n = lens.list(); i < n; ++i) s.lens.push_back(topTokens(lens[i], args, run.options.lensTopK));
    }
    if (j.has("cacheFilled")) s.cacheFilled = j["cacheFilled"].integer(0, args.max_seq_len);
    // A run of one sequence has them too: speculative decoding checks its drafts in ubatches.
    if (j.has("batch")) {
        requireBatchVersion(run.version);
        readBatchStage(j["batch"], s, args);
    }
    return s;
}

void readEnd(const TraceField& j, TraceRun& run) {
    run.promptTokens = readTraceTokens(j["promptTokens"], run.args, run.args.max_seq_len);
    run.generatedTokens = readTraceTokens(j["generatedTokens"], run.args, run.args.max_seq_len - int64_t(run.promptTokens.size()));
    run.generatedText = j["text"].text(kMaxTraceTextBytes);
    run.stopReason = j["stopReason"].text(kMaxTracePieceBytes);
    if (j.has("sequences") != run.run.batch.has_value())
        throw TraceError(run.run.batch ? "field 'sequences' is missing: a batch's END lists its sequences"
                                       : "field 'sequences' in a trace whose META has no 'batch' (one sequence)");
    if (run.run.batch) run.sequences = readBatchSequences(j["sequences"], run.args, run.run.maxTokens);
}
}  // namespace

uint32_t checkTraceHeader(std::string_view bytes, const std::string& path) {
    if (bytes.substr(0, trace::kMagic.size()) != trace::kMagic)
        throw TraceError(fmt::format("'{}' is not a llama-walkthrough trace: it does not start with \"{}\"", path, trace::kMagic));
    if (bytes.size() < trace::kHeaderBytes) throw TraceError(fmt::format("'{}' is truncated: it ends inside the file header", path));
    uint32_t version;
    std::memcpy(&version, bytes.data() + trace::kMagic.size(), sizeof(uint32_t));
    if (version == 0 || version > trace::kVersion)
        throw TraceError(fmt::format("'{}' is trace format version {}; this build reads version {}", path, version, trace::kVersion));
    return version;
}

TraceRecordView nextTraceRecord(std::string_view bytes, size_t& pos, const std::string& path, int index) {
    if (bytes.size() - pos < trace::kRecordHeaderBytes)
        throw TraceError(fmt::format("'{}' is truncated: record {} at byte {} has an incomplete header", path, index, pos));
    TraceRecordView r;
    r.kind = std::string(bytes.substr(pos, 4));
    uint32_t jsonBytes;
    uint64_t dataBytes;
    std::memcpy(&jsonBytes, bytes.data() + pos + 4, 4);
    std::memcpy(&dataBytes, bytes.data() + pos + 8, 8);
    pos += trace::kRecordHeaderBytes;
    const size_t remaining = bytes.size() - pos;
    if (jsonBytes > remaining || dataBytes > remaining - jsonBytes)
        throw TraceError(fmt::format("'{}' is truncated: record {} ({}) needs {} bytes at byte {}, only {} remain", path, index, r.kind,
                                     uint64_t(jsonBytes) + dataBytes, pos, remaining));
    r.json = bytes.substr(pos, jsonBytes);
    r.data = bytes.substr(pos + jsonBytes, dataBytes);
    pos += jsonBytes + dataBytes;
    return r;
}

TraceRun readTraceRun(std::string_view bytes, size_t& pos, const std::string& path, uint32_t version, int firstIndex,
                      const std::function<void(size_t done, size_t total)>& progress, bool endRequired, TraceValues values) {
    TraceRun run;
    run.version = version;
    bool ended = false;
    for (int index = firstIndex; !ended; ++index) {
        if (pos == bytes.size() && !endRequired && index > firstIndex) break;
        if (pos == bytes.size())
            throw TraceError(fmt::format("'{}' is truncated: it ends after {} records without its END record (was the run cut short?)",
                                         path, index));
        const TraceRecordView record = nextTraceRecord(bytes, pos, path, index);
        ended = readTraceRecord(record, run, path, index, index == firstIndex);
        if (values == TraceValues::Drop && !run.stages.empty())
            for (TracedTensor& t : run.stages.back().tensors) t.values = Tensor();
        if (progress) progress(pos, bytes.size());
    }
    checkTraceRecordsAgree(run, path, firstIndex, ended);
    return run;
}

bool readTraceRecord(const TraceRecordView& record, TraceRun& run, const std::string& path, int index, bool first) {
    const std::string& kind = record.kind;
    if (first != (kind == trace::kMetaRecord)) {
        if (kind == trace::kPatchRecord)
            // Read where one run is wanted (a comparison, diff): what it is and where it opens,
            // the same whichever program met it.
            throw TraceError(fmt::format("'{}' is an activation-patching trace (`patch --trace`, two runs and their grid), not one "
                                         "run: it opens only as the trace to show (llama-viewer --trace or File > Open trace, "
                                         "export-html TRACE), not as one to compare with or to diff",
                                         path));
        throw TraceError(fmt::format("'{}': record {} is {}: a trace starts with one META record", path, index, kind));
    }
    try {
        const json j = json::parse(record.json);
        const TraceField fields(j);
        if (kind == trace::kMetaRecord) readMeta(fields, run);
        else if (kind == trace::kStageRecord) run.stages.push_back(readStage(fields, record.data, run));
        else if (kind == trace::kEndRecord) {
            readEnd(fields, run);
            return true;
        } else throw TraceError(fmt::format("unknown record kind '{}'", kind));
    } catch (const json::exception& e) {
        throw TraceError(fmt::format("'{}': record {} ({}) is malformed: {}", path, index, kind, e.what()));
    } catch (const TraceError& e) {
        throw TraceError(fmt::format("'{}': record {} ({}): {}", path, index, kind, e.what()));
    }
    return false;
}

std::string readTraceFile(const std::string& path) {
    // Reading holds the file and its decoded tensors (about as many bytes again).
    try {
        return readInputFile(path, "trace", 2);
    } catch (const std::invalid_argument& e) {
        throw TraceError(e.what());
    }
}

TraceRun readTraceBytes(std::string_view bytes, const std::string& path, const std::function<void(size_t done, size_t total)>& progress) {
    if (progress) progress(0, bytes.size());
    const uint32_t version = checkTraceHeader(bytes, path);
    size_t pos = trace::kHeaderBytes;
    TraceRun run = readTraceRun(bytes, pos, path, version, 0, progress, true);
    if (pos != bytes.size()) throw TraceError(fmt::format("'{}': {} unexpected bytes after the END record", path, bytes.size() - pos));
    return run;
}

TraceRun readTrace(const std::string& path, const std::function<void(size_t done, size_t total)>& progress) {
    return readTraceBytes(readTraceFile(path), path, progress);
}

TraceRun readTraceSoFar(const std::string& path) {
    const std::string file = readTraceFile(path);
    const std::string_view bytes(file);
    size_t pos = trace::kHeaderBytes;
    return readTraceRun(bytes, pos, path, checkTraceHeader(bytes, path), 0, {}, false);
}

}  // namespace llama
