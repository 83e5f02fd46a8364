#include "trace/trace_reader.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

#include "tensor/bfloat16.h"
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

TraceToken token(const json& j) { return {j.at("id").get<int32_t>(), j.at("piece").get<std::string>(), j.at("special").get<bool>()}; }

std::vector<TraceToken> tokens(const json& j) {
    std::vector<TraceToken> out;
    for (const auto& t : j) out.push_back(token(t));
    return out;
}

ModelArgs argsFrom(const json& j) {
    ModelArgs a;
    a.dim = j.at("dim");
    a.n_layers = j.at("n_layers");
    a.n_heads = j.at("n_heads");
    a.n_kv_heads = j.at("n_kv_heads");
    a.vocab_size = j.at("vocab_size");
    a.multiple_of = j.at("multiple_of");
    if (!j.at("ffn_dim_multiplier").is_null()) a.ffn_dim_multiplier = j.at("ffn_dim_multiplier").get<double>();
    a.norm_eps = j.at("norm_eps");
    a.rope_theta = j.at("rope_theta");
    a.use_scaled_rope = j.at("use_scaled_rope");
    a.max_seq_len = j.at("max_seq_len");
    return a;
}

void readMeta(const json& j, TraceRun& run) {
    const json& model = j.at("model");
    run.modelFormat = model.at("format");
    run.modelPath = model.at("path");
    run.args = argsFrom(model.at("args"));
    const json& r = j.at("run");
    run.run.prompt = r.at("prompt");
    run.run.maxTokens = r.at("maxTokens");
    run.run.sampling.temperature = r.at("temperature");
    run.run.sampling.topK = r.at("topK");
    run.run.sampling.topP = r.at("topP");
    run.run.sampling.seed = r.at("seed");
    run.run.dryRun = r.at("dryRun");
    const json& t = j.at("trace");
    run.options.summaries = t.at("summaries");
    if (t.at("attentionLayers").is_array()) run.options.attentionLayers = t.at("attentionLayers").get<std::set<int>>();
    run.options.preSoftmax = t.at("preSoftmax");
    run.options.maxPositions = t.at("maxPositions");
    run.options.topK = t.at("topK");
}

// bf16 or i32 bytes from the record's data part -> an F32 tensor of `shape`.
Tensor valuesFrom(const json& v, const Shape& shape, std::string_view data) {
    const std::string encoding = v.at("encoding");
    const uint64_t offset = v.at("offset"), bytes = v.at("bytes");
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

TracedStage readStage(const json& j, std::string_view data) {
    TracedStage s;
    const std::string key = j.at("stage");
    const StageInfo* info = findStage(key);
    if (!info) throw TraceError(fmt::format("unknown stage '{}'", key));
    s.stage = info->id;
    s.layer = j.at("layer");
    s.step = j.at("step");
    s.startPos = j.at("startPos");
    s.message = j.at("message");
    for (const json& d : j.at("tensors")) {
        TracedTensor t;
        t.name = d.at("name");
        t.shape = d.at("shape").get<Shape>();
        t.dtype = dtypeFromName(d.at("dtype"));
        if (d.contains("stats")) {
            const json& st = d["stats"];
            TensorStats stats{number(st.at("min")), number(st.at("max")), number(st.at("mean")), st.at("negInf").get<int64_t>(), {}};
            for (const json& v : st.at("first")) stats.first.push_back(number(v));
            t.stats = stats;
        }
        if (d.contains("values")) t.values = valuesFrom(d["values"], t.shape, data);
        if (d.contains("tokens")) t.tokens = tokens(d["tokens"]);
        s.tensors.push_back(std::move(t));
    }
    if (j.contains("top"))
        for (const json& p : j["top"]) s.top.push_back({p.at("id"), p.at("piece"), number(p.at("logit")), number(p.at("probability"))});
    if (j.contains("cacheFilled")) s.cacheFilled = j["cacheFilled"].get<int>();
    return s;
}

void readEnd(const json& j, TraceRun& run) {
    run.promptTokens = tokens(j.at("promptTokens"));
    run.generatedTokens = tokens(j.at("generatedTokens"));
    run.generatedText = j.at("text");
    run.stopReason = j.at("stopReason");
}
}  // namespace

TraceRun readTrace(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TraceError(fmt::format("cannot open trace '{}'", path));
    const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string_view bytes(file);

    if (bytes.substr(0, trace::kMagic.size()) != trace::kMagic)
        throw TraceError(fmt::format("'{}' is not a llama-walkthrough trace: it does not start with \"{}\"", path, trace::kMagic));
    const size_t headerBytes = trace::kMagic.size() + sizeof(uint32_t);
    if (bytes.size() < headerBytes) throw TraceError(fmt::format("'{}' is truncated: it ends inside the file header", path));
    TraceRun run;
    std::memcpy(&run.version, bytes.data() + trace::kMagic.size(), sizeof(uint32_t));
    if (run.version == 0 || run.version > trace::kVersion)
        throw TraceError(fmt::format("'{}' is trace format version {}; this build reads version {}", path, run.version, trace::kVersion));

    size_t pos = headerBytes;
    bool ended = false;
    for (int index = 0; !ended; ++index) {
        if (pos == bytes.size())
            throw TraceError(fmt::format("'{}' is truncated: it ends after {} records without its END record (was the run cut short?)",
                                         path, index));
        if (bytes.size() - pos < trace::kRecordHeaderBytes)
            throw TraceError(fmt::format("'{}' is truncated: record {} at byte {} has an incomplete header", path, index, pos));
        const std::string kind(bytes.substr(pos, 4));
        uint32_t jsonBytes;
        uint64_t dataBytes;
        std::memcpy(&jsonBytes, bytes.data() + pos + 4, 4);
        std::memcpy(&dataBytes, bytes.data() + pos + 8, 8);
        pos += trace::kRecordHeaderBytes;
        const size_t remaining = bytes.size() - pos;
        if (jsonBytes > remaining || dataBytes > remaining - jsonBytes)
            throw TraceError(fmt::format("'{}' is truncated: record {} ({}) needs {} bytes at byte {}, only {} remain", path, index, kind,
                                         uint64_t(jsonBytes) + dataBytes, pos, remaining));
        const std::string_view jsonText = bytes.substr(pos, jsonBytes);
        const std::string_view data = bytes.substr(pos + jsonBytes, dataBytes);
        pos += jsonBytes + dataBytes;

        if ((index == 0) != (kind == trace::kMetaRecord))
            throw TraceError(fmt::format("'{}': record {} is {}: a trace starts with one META record", path, index, kind));
        try {
            const json j = json::parse(jsonText);
            if (kind == trace::kMetaRecord) readMeta(j, run);
            else if (kind == trace::kStageRecord) run.stages.push_back(readStage(j, data));
            else if (kind == trace::kEndRecord) {
                readEnd(j, run);
                ended = true;
            } else throw TraceError(fmt::format("unknown record kind '{}'", kind));
        } catch (const json::exception& e) {
            throw TraceError(fmt::format("'{}': record {} ({}) is malformed: {}", path, index, kind, e.what()));
        } catch (const TraceError& e) {
            throw TraceError(fmt::format("'{}': record {} ({}): {}", path, index, kind, e.what()));
        }
    }
    if (pos != bytes.size()) throw TraceError(fmt::format("'{}': {} unexpected bytes after the END record", path, bytes.size() - pos));
    return run;
}

}  // namespace llama
