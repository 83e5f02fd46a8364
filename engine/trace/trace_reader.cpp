#include "trace/trace_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "io/input_file.h"
#include "tensor/bfloat16.h"
#include "trace/batch_trace_reader.h"
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
// Text a page shows whole: a prompt or the generated text, a token's piece.
constexpr size_t kMaxTextBytes = 1024 * 1024;
constexpr size_t kMaxPieceBytes = 1024;

// The field read last, so that a value of the wrong JSON type is reported with its field's name
// (nlohmann's own message names only the type).
thread_local const char* lastField = "";

const json& member(const json& j, const char* key) {
    lastField = key;
    if (!j.is_object()) throw TraceError(fmt::format("field '{}': expected an object holding it, got {}", key, j.type_name()));
    const auto it = j.find(key);
    if (it == j.end()) throw TraceError(fmt::format("field '{}' is missing", key));
    return *it;
}

const json& array(const json& j, const char* key) {
    const json& v = member(j, key);
    if (!v.is_array()) throw TraceError(fmt::format("field '{}' is {}: expected an array", key, v.type_name()));
    return v;
}

int64_t checkedInteger(const json& v, const char* key, int64_t lo, int64_t hi) {
    if (!v.is_number_integer()) throw TraceError(fmt::format("field '{}' must be an integer", key));
    const int64_t n = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX) ? INT64_MAX : v.get<int64_t>();
    if (n < lo || n > hi) throw TraceError(fmt::format("field '{}' is {}: expected {} to {}", key, v.dump(), lo, hi));
    return n;
}

int64_t integer(const json& j, const char* key, int64_t lo, int64_t hi) { return checkedInteger(member(j, key), key, lo, hi); }
// An array's element, named after the array in errors.
int64_t integer(const json& j, size_t index, const char* name, int64_t lo, int64_t hi) { return checkedInteger(j.at(index), name, lo, hi); }

Shape shapeFrom(const json& j) {
    if (!j.is_array() || j.size() > kMaxRank) throw TraceError(fmt::format("a shape must be an array of at most {} sizes", kMaxRank));
    Shape shape;
    int64_t elements = 1;
    for (const json& d : j) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0) throw TraceError(fmt::format("shape {} has a size that is not >= 0", j.dump()));
        const int64_t n = d.get<int64_t>();
        if (n > kMaxElements || (n && elements > kMaxElements / n))
            throw TraceError(fmt::format("shape {} has more than {} elements", j.dump(), kMaxElements));
        elements *= n;
        shape.push_back(n);
    }
    return shape;
}

float number(const json& j) {
    if (j.is_number()) return j.get<float>();
    const auto s = j.get<std::string>();
    if (s == "inf") return std::numeric_limits<float>::infinity();
    if (s == "-inf") return -std::numeric_limits<float>::infinity();
    if (s == "nan") return std::numeric_limits<float>::quiet_NaN();
    throw TraceError(fmt::format("'{}' is not a number", s));
}

DType dtypeFromName(const std::string& name) {
    for (DType t : {DType::F32, DType::BF16, DType::Complex64, DType::I32})
        if (name == dtypeName(t)) return t;
    throw TraceError(fmt::format("unknown dtype '{}'", name));
}

bool boolean(const json& j, const char* key) {
    const json& v = member(j, key);
    if (!v.is_boolean()) throw TraceError(fmt::format("field '{}' must be true or false", key));
    return v.get<bool>();
}

std::string text(const json& j, const char* key, size_t maxBytes) {
    const json& v = member(j, key);
    if (!v.is_string()) throw TraceError(fmt::format("field '{}' is {}: expected a string", key, v.type_name()));
    if (v.get_ref<const std::string&>().size() > maxBytes)
        throw TraceError(fmt::format("field '{}' has {} bytes: at most {} are expected", key, v.get_ref<const std::string&>().size(), maxBytes));
    return v.get<std::string>();
}

TraceToken token(const json& j, const ModelArgs& args) {
    return {int32_t(integer(j, "id", 0, args.vocab_size - 1)), text(j, "piece", kMaxPieceBytes), boolean(j, "special")};
}

// A list of tokens: at most `maxCount` (a run's tokens fit its context), each in the vocabulary.
std::vector<TraceToken> tokens(const json& j, const char* key, const ModelArgs& args, int64_t maxCount) {
    if (!j.is_array()) throw TraceError(fmt::format("field '{}' is {}: expected an array", key, j.type_name()));
    if (int64_t(j.size()) > maxCount)
        throw TraceError(fmt::format("field '{}' lists {} tokens: a run of at most {} positions holds at most {}", key, j.size(),
                                     args.max_seq_len, maxCount));
    std::vector<TraceToken> out;
    for (const auto& t : j) out.push_back(token(t, args));
    return out;
}

ModelArgs argsFrom(const json& j) {
    ModelArgs a;
    auto field = [&](const char* key) { return int(integer(j, key, INT32_MIN, INT32_MAX)); };
    a.dim = field("dim");
    a.n_layers = field("n_layers");
    a.n_heads = field("n_heads");
    a.n_kv_heads = field("n_kv_heads");
    a.vocab_size = field("vocab_size");
    a.multiple_of = field("multiple_of");
    if (!member(j, "ffn_dim_multiplier").is_null()) a.ffn_dim_multiplier = member(j, "ffn_dim_multiplier").get<double>();
    a.norm_eps = member(j, "norm_eps");
    a.rope_theta = member(j, "rope_theta");
    a.use_scaled_rope = member(j, "use_scaled_rope");
    a.max_seq_len = field("max_seq_len");
    try {
        a.validate("model.args");
    } catch (const std::invalid_argument& e) {
        throw TraceError(e.what());
    }
    return a;
}

// Version 1 traces predate the what-if switches: they are runs of the model itself.
WhatIf whatIfFrom(const json& j, const ModelArgs& args) {
    if (!j.is_object()) throw TraceError(fmt::format("field 'whatIf' is {}: expected an object", j.type_name()));
    WhatIf w;
    w.noMask = boolean(j, "noMask");
    w.noKvCache = boolean(j, "noKvCache");
    w.noRope = boolean(j, "noRope");
    if (const json& theta = member(j, "ropeTheta"); !theta.is_null()) {
        if (!theta.is_number()) throw TraceError("whatIf: field 'ropeTheta' must be a number or null");
        w.ropeTheta = theta.get<double>();
    }
    for (const json& h : array(j, "ablateHeads")) {
        if (!h.is_array() || h.size() != 2) throw TraceError("whatIf: field 'ablateHeads' must hold [layer, head] pairs");
        w.ablateHeads.insert({int(integer(h, 0, "ablateHeads layer", 0, args.n_layers - 1)),
                              int(integer(h, 1, "ablateHeads head", 0, args.n_heads - 1))});
    }
    // Traces written before --compute-dtype existed have no such field: the model's own dtype.
    if (auto dtype = j.find("computeDType"); dtype != j.end() && !dtype->is_null()) {
        if (!dtype->is_string()) throw TraceError("whatIf: field 'computeDType' must be \"bf16\", \"f32\" or null");
        try {
            w.computeDType = parseComputeDType(dtype->get<std::string>());
        } catch (const std::invalid_argument& e) {
            throw TraceError(std::string("whatIf: field 'computeDType': ") + e.what());
        }
    }
    // Traces written before control vectors existed have no such field.
    if (auto cv = j.find("controlVectors"); cv != j.end() && !cv->is_null()) {
        auto steering = std::make_shared<Steering>();
        for (const json& f : array(*cv, "files")) {
            if (!f.is_object() || !f.contains("path") || !f["path"].is_string() || !f.contains("scale") || !f["scale"].is_number())
                throw TraceError("whatIf: field 'controlVectors.files' must hold {\"path\": text, \"scale\": number} objects");
            steering->files.push_back({f["path"].get<std::string>(), f["scale"].get<float>()});
        }
        if (const json& layers = member(*cv, "layers"); !layers.is_null()) {
            if (!layers.is_array() || layers.size() != 2) throw TraceError("whatIf: field 'controlVectors.layers' must be [first, last] or null");
            steering->layers = std::pair{int(integer(layers, 0, "controlVectors layer", 1, args.n_layers)),
                                         int(integer(layers, 1, "controlVectors layer", 1, args.n_layers))};
        }
        w.steering = std::move(steering);
    }
    const json& skip = array(j, "skipLayers");
    for (size_t i = 0; i < skip.size(); ++i) w.skipLayers.insert(int(integer(skip, i, "skipLayers", 0, args.n_layers - 1)));
    try {
        w.validate(args.n_layers, args.n_heads);
    } catch (const std::invalid_argument& e) {
        throw TraceError(fmt::format("whatIf: {}", e.what()));
    }
    return w;
}

void readMeta(const json& j, TraceRun& run) {
    const json& model = member(j, "model");
    run.modelFormat = text(model, "format", kMaxPieceBytes);
    run.modelPath = text(model, "path", kMaxPieceBytes * 4);
    run.args = argsFrom(member(model, "args"));
    const json& r = member(j, "run");
    run.run.prompt = text(r, "prompt", kMaxTextBytes);
    run.run.maxTokens = int(integer(r, "maxTokens", 0, ModelArgs::kMaxPositions));
    run.run.sampling.temperature = member(r, "temperature");
    run.run.sampling.topK = int(integer(r, "topK", 0, ModelArgs::kMaxVocab));
    run.run.sampling.topP = member(r, "topP");
    // minP came later in version 1: absent means off.
    run.run.sampling.minP = r.contains("minP") ? float(member(r, "minP")) : 0.0f;
    if (!(run.run.sampling.minP >= 0.0f && run.run.sampling.minP <= 1.0f))
        throw TraceError(fmt::format("run: minP {} must be in [0, 1]", run.run.sampling.minP));
    // A seed is unsigned: -1 must not pass for 2^64-1.
    if (const json& seed = member(r, "seed"); !seed.is_number_unsigned())
        throw TraceError(fmt::format("field 'seed' is {}: expected a whole number from 0 to {}", seed.dump(), UINT64_MAX));
    run.run.sampling.seed = member(r, "seed").get<uint64_t>();
    // The penalties came later in version 1: all four or none (a run without them).
    const char* penalties[] = {"repeatPenalty", "repeatLastN", "frequencyPenalty", "presencePenalty"};
    const int present = int(std::count_if(std::begin(penalties), std::end(penalties), [&](const char* k) { return r.contains(k); }));
    if (present != 0 && present != 4) throw TraceError("run: the penalties repeatPenalty, repeatLastN, frequencyPenalty and presencePenalty come together");
    if (present) {
        run.run.sampling.repeatPenalty = member(r, "repeatPenalty");
        run.run.sampling.repeatLastN = int(integer(r, "repeatLastN", -1, INT32_MAX));
        run.run.sampling.frequencyPenalty = member(r, "frequencyPenalty");
        run.run.sampling.presencePenalty = member(r, "presencePenalty");
    }
    // Mirostat and the grammar came later in version 2: absent means off.
    if (r.contains("mirostat")) {
        run.run.sampling.mirostat = int(integer(r, "mirostat", 0, 2));
        run.run.sampling.mirostatTau = member(r, "mirostatTau");
        run.run.sampling.mirostatEta = member(r, "mirostatEta");
    }
    if (auto g = r.find("grammar"); g != r.end() && !g->is_null()) run.run.grammar = text(r, "grammar", 4096);
    try {
        validateSamplingSettings(run.run.sampling);
    } catch (const std::invalid_argument& e) {
        throw TraceError(std::string("run: ") + e.what());
    }
    run.run.dryRun = member(r, "dryRun");
    const json& t = member(j, "trace");
    run.options.summaries = member(t, "summaries");
    // "all", or the 0-based layers whose scores were stored.
    if (const json& layers = member(t, "attentionLayers"); layers.is_array()) {
        run.options.attentionLayers.emplace();
        for (size_t i = 0; i < layers.size(); ++i)
            run.options.attentionLayers->insert(int(integer(layers, i, "attentionLayers", 0, run.args.n_layers - 1)));
    } else if (layers != "all") {
        throw TraceError(fmt::format("field 'attentionLayers' is {}: expected \"all\" or an array of layers", layers.dump()));
    }
    run.options.preSoftmax = member(t, "preSoftmax");
    run.options.maxPositions = int(integer(t, "maxPositions", 0, ModelArgs::kMaxPositions));
    run.options.topK = int(integer(t, "topK", 0, ModelArgs::kMaxVocab));
    if (run.version >= 2) {
        run.run.whatIf = whatIfFrom(member(j, "whatIf"), run.args);
        run.options.residual = boolean(t, "residual");
        run.options.lensTopK = int(integer(t, "lensTopK", 0, ModelArgs::kMaxVocab));
    } else {
        run.options.residual = false;
        run.options.lensTopK = 0;
    }
    if (j.contains("batch")) {
        if (run.version < trace::kFirstBatchVersion)
            throw TraceError(fmt::format("field 'batch': a version {} trace records one sequence; batches came in version {}", run.version,
                                         trace::kFirstBatchVersion));
        run.run.batch = readBatchMeta(j["batch"]);
    }
}

// bf16 or i32 bytes from the record's data part -> an F32 tensor of `shape`.
Tensor valuesFrom(const json& v, const Shape& shape, std::string_view data) {
    const std::string encoding = member(v, "encoding");
    const uint64_t offset = member(v, "offset"), bytes = member(v, "bytes");
    const size_t elementBytes = encoding == "bf16" ? 2 : encoding == "i32" ? 4 : 0;
    if (!elementBytes) throw TraceError(fmt::format("unknown value encoding '{}'", encoding));
    if (bytes != uint64_t(shapeNumel(shape)) * elementBytes)
        throw TraceError(fmt::format("{} bytes of {} values do not fit shape {}", bytes, encoding, shapeToString(shape)));
    if (offset > data.size() || bytes > data.size() - offset)
        throw TraceError(fmt::format("values at [{}, {}) lie outside the record's {} data bytes", offset, offset + bytes, data.size()));
    Tensor t(shape, DType::F32);
    float* out = t.mutableData<float>();
    const char* in = data.data() + offset;
    for (int64_t i = 0, n = t.numel(); i < n; ++i) {
        if (elementBytes == 2) {
            uint16_t b;
            std::memcpy(&b, in + i * 2, 2);
            out[i] = BFloat16::toFloat(b);
        } else {
            int32_t id;
            std::memcpy(&id, in + i * 4, 4);
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

// A "top" or "lens" list: ids in the vocabulary, probabilities in [0, 1].
// `field` names the list in messages: "top", "topPenalized", "lens".
// At most `maxCount` of them (the trace's --trace-top-k or --trace-lens-top-k).
std::vector<TraceTopToken> topTokens(const json& j, const ModelArgs& args, std::string_view field, int maxCount) {
    if (!j.is_array()) throw TraceError("a list of top tokens must be an array");
    if (int64_t(j.size()) > maxCount)
        throw TraceError(fmt::format("{}: {} tokens listed, but the trace's settings keep at most {}", field, j.size(), maxCount));
    std::vector<TraceTopToken> out;
    for (const json& p : j) {
        TraceTopToken t{int32_t(integer(p, "id", 0, args.vocab_size - 1)), text(p, "piece", kMaxPieceBytes), number(member(p, "logit")),
                        number(member(p, "probability"))};
        if (!(t.probability >= 0 && t.probability <= 1))
            throw TraceError(fmt::format("{}: probability {} is outside [0, 1]", field, t.probability));
        out.push_back(std::move(t));
    }
    return out;
}

TracedStage readStage(const json& j, std::string_view data, const TraceRun& run) {
    const ModelArgs& args = run.args;
    TracedStage s;
    const std::string key = member(j, "stage");
    const StageInfo* info = findStage(key);
    if (!info) throw TraceError(fmt::format("unknown stage '{}'", key));
    s.stage = info->id;
    s.layer = int(info->inBlock ? integer(j, "layer", 0, args.n_layers - 1) : integer(j, "layer", -1, -1));
    s.step = int(integer(j, "step", 0, args.max_seq_len));
    s.startPos = int(integer(j, "startPos", 0, args.max_seq_len));
    s.message = text(j, "message", kMaxMessageBytes);
    for (const json& d : array(j, "tensors")) {
        TracedTensor t;
        t.name = text(d, "name", kMaxPieceBytes);
        t.shape = shapeFrom(member(d, "shape"));
        checkRank(t, args);
        t.dtype = dtypeFromName(member(d, "dtype"));
        if (d.contains("stats")) {
            const json& st = d["stats"];
            TensorStats stats{number(member(st, "min")), number(member(st, "max")), number(member(st, "mean")), member(st, "negInf").get<int64_t>(), {}};
            const json& first = array(st, "first");
            if (first.size() > 64) throw TraceError(fmt::format("tensor '{}': its summary lists {} first values: at most 64 are kept", t.name, first.size()));
            for (const json& v : first) stats.first.push_back(number(v));
            t.stats = stats;
        }
        if (d.contains("values")) t.values = valuesFrom(d["values"], t.shape, data);
        if (d.contains("tokens")) {
            t.tokens = tokens(d["tokens"], "tokens", args, args.max_seq_len);
            // Token ids fill a row of at most the context length, from its start.
            if (t.shape.size() != 1 || t.shape[0] > args.max_seq_len || int64_t(t.tokens.size()) > t.shape[0])
                throw TraceError(fmt::format("tensor '{}' of shape {} lists {} tokens: expected a row of at most {} positions holding them",
                                             t.name, shapeToString(t.shape), t.tokens.size(), args.max_seq_len));
        }
        s.tensors.push_back(std::move(t));
    }
    if (j.contains("top")) s.top = topTokens(j["top"], args, "top", run.options.topK);
    if (j.contains("topPenalized")) {
        if (!j.contains("top")) throw TraceError("topPenalized without top");
        s.topPenalized = topTokens(j["topPenalized"], args, "topPenalized", run.options.topK);
    }
    if (j.contains("lens")) {
        const json& lens = j["lens"];
        const TracedTensor* residual = s.tensor("output");
        if (s.stage != StageId::FfnResidual || !residual || residual->shape.size() != 2 || !lens.is_array() ||
            lens.size() != size_t(residual->shape[0]))
            throw TraceError("field 'lens' belongs to ffn_residual stages, one list of top tokens per row of its output");
        for (const json& position : lens) s.lens.push_back(topTokens(position, args, "lens", run.options.lensTopK));
    }
    if (j.contains("cacheFilled")) s.cacheFilled = int(integer(j, "cacheFilled", 0, args.max_seq_len));
    if (j.contains("batch")) {
        if (!run.run.batch) throw TraceError("field 'batch' in a trace whose META has no 'batch' (one sequence)");
        readBatchStage(j["batch"], s, args);
    }
    return s;
}

// The attention tensors of one token step index each other (a cell's arithmetic reads the mask at
// row * positions + column, the keys at their head's row): within a step, every one of them must
// agree on the rows (query positions) and positions (keys) it holds, and on the model's heads and
// head size. Checked once here, so that no reader of a trace has to.
void checkAttentionShapes(const TraceRun& run, const std::string& path) {
    struct Known {
        int64_t value = -1;  // -1 until a tensor of the step says
        size_t record = 0;
        std::string tensor;
    };
    std::map<int, std::pair<Known, Known>> steps;  // step -> its rows and positions
    const int64_t heads = run.args.n_heads, headDim = run.args.n_heads > 0 ? run.args.dim / run.args.n_heads : 0;
    for (size_t i = 0; i < run.stages.size(); ++i) {
        const TracedStage& s = run.stages[i];
        const size_t record = i + 1;  // record 0 is META
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
                throw TraceError(fmt::format("'{}': record {} (STAG {}, step {}): tensor '{}' has shape {}: expected {}", path, record,
                                             s.info().key, s.step, t.name, shapeToString(t.shape), expected));
        }
    }
}

void readEnd(const json& j, TraceRun& run) {
    run.promptTokens = tokens(member(j, "promptTokens"), "promptTokens", run.args, run.args.max_seq_len);
    run.generatedTokens = tokens(member(j, "generatedTokens"), "generatedTokens", run.args, run.args.max_seq_len - int64_t(run.promptTokens.size()));
    run.generatedText = text(j, "text", kMaxTextBytes);
    run.stopReason = text(j, "stopReason", kMaxPieceBytes);
    if (j.contains("sequences") != run.run.batch.has_value())
        throw TraceError(run.run.batch ? "field 'sequences' is missing: a batch's END lists its sequences"
                                       : "field 'sequences' in a trace whose META has no 'batch' (one sequence)");
    if (run.run.batch) run.sequences = readBatchSequences(j["sequences"], run.args);
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
                      const std::function<void(size_t done, size_t total)>& progress) {
    TraceRun run;
    run.version = version;
    bool ended = false;
    for (int index = firstIndex; !ended; ++index) {
        if (pos == bytes.size())
            throw TraceError(fmt::format("'{}' is truncated: it ends after {} records without its END record (was the run cut short?)",
                                         path, index));
        const TraceRecordView record = nextTraceRecord(bytes, pos, path, index);
        const std::string& kind = record.kind;
        if ((index == firstIndex) != (kind == trace::kMetaRecord)) {
            if (kind == trace::kPatchRecord)
                throw TraceError(fmt::format("'{}' is an activation-patching trace (`patch --trace`, two runs and their grid): open it in "
                                             "the viewer or export-html, not as one run",
                                             path));
            throw TraceError(fmt::format("'{}': record {} is {}: a trace starts with one META record", path, index, kind));
        }
        try {
            lastField = "";
            const json j = json::parse(record.json);
            if (kind == trace::kMetaRecord) readMeta(j, run);
            else if (kind == trace::kStageRecord) run.stages.push_back(readStage(j, record.data, run));
            else if (kind == trace::kEndRecord) {
                readEnd(j, run);
                ended = true;
            } else throw TraceError(fmt::format("unknown record kind '{}'", kind));
        } catch (const json::exception& e) {
            throw TraceError(fmt::format("'{}': record {} ({}) is malformed at field '{}': {}", path, index, kind, lastField, e.what()));
        } catch (const TraceError& e) {
            throw TraceError(fmt::format("'{}': record {} ({}): {}", path, index, kind, e.what()));
        }
        if (progress) progress(pos, bytes.size());
    }
    checkAttentionShapes(run, path);
    return run;
}

std::string readTraceFile(const std::string& path) {
    // Reading holds the file and its decoded tensors (about as many bytes again).
    try {
        return readInputFile(path, "trace", 2);
    } catch (const std::invalid_argument& e) {
        throw TraceError(e.what());
    }
}

TraceRun readTrace(const std::string& path, const std::function<void(size_t done, size_t total)>& progress) {
    const std::string file = readTraceFile(path);
    const std::string_view bytes(file);
    if (progress) progress(0, bytes.size());
    const uint32_t version = checkTraceHeader(bytes, path);
    size_t pos = trace::kHeaderBytes;
    TraceRun run = readTraceRun(bytes, pos, path, version, 0, progress);
    if (pos != bytes.size()) throw TraceError(fmt::format("'{}': {} unexpected bytes after the END record", path, bytes.size() - pos));
    return run;
}

}  // namespace llama
