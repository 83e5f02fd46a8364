#include "trace/trace_recorder.h"

#include <fmt/format.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "tensor/tensor_stats.h"
#include "trace/batch_trace_json.h"
#include "trace/trace_json.h"
#include "trace/trace_readback.h"

namespace llama {

using nlohmann::json;
using namespace trace;

namespace {
bool residualStage(StageId s) { return s == StageId::InputEmbeddings || s == StageId::AttentionResidual || s == StageId::FfnResidual; }

// Token ids as I32, anything else as bfloat16: half of F32, and what the model computes in.
// Appends the values to `data` and returns their offset.
int64_t appendValues(const Tensor& t, std::string& data) {
    const size_t offset = data.size();
    const bool ids = t.dtype() == DType::I32;
    const size_t bytes = ids ? t.byteSize() : size_t(t.numel()) * 2;
    data.resize(offset + bytes);
    if (ids || t.dtype() == DType::BF16) {
        std::memcpy(data.data() + offset, t.rawData(), bytes);
    } else {
        auto* out = reinterpret_cast<uint16_t*>(data.data() + offset);
        for (int64_t i = 0, n = t.numel(); i < n; ++i) out[i] = BFloat16::fromFloat(t.floatAt(i));
    }
    return int64_t(offset);
}

// The values just appended at `offset`, `heads` blocks of equal size, stored once per group of
// `repeat` alike heads in a row (a model with fewer KV heads than query heads repeats its keys for
// each query head: 8 times in TinyLlama, 7/8 of the stored keys); `repeat` when they were, 1 when
// some group's heads differ (then nothing changes).
int storeRepeatedHeadsOnce(std::string& data, size_t offset, int64_t heads, int repeat) {
    if (repeat <= 1 || heads % repeat) return 1;
    const size_t block = (data.size() - offset) / size_t(heads);
    const char* at = data.data() + offset;
    for (int64_t h = 0; h < heads; ++h)
        if (h % repeat && std::memcmp(at + size_t(h) * block, at + size_t(h - h % repeat) * block, block) != 0) return 1;
    char* out = data.data() + offset;
    for (int64_t g = 1; g < heads / repeat; ++g) std::memmove(out + size_t(g) * block, out + size_t(g * repeat) * block, block);
    data.resize(offset + size_t(heads / repeat) * block);
    return repeat;
}
}  // namespace

TraceRecorder::TraceRecorder(const std::string& path, const Model& model, const TraceRunInfo& run, const TraceOptions& options,
                             const LogitLens* lens)
    : out_(path, size_t(1) << 20),
      path_(path),
      tokenizer_(model.tokenizer),
      sampler_(run.sampling),
      lens_(lens),
      options_(options),
      headRepeat_(model.args.n_kv_heads > 0 ? model.args.n_heads / model.args.n_kv_heads : 1) {
    out_.stream().write(trace::kMagic.data(), trace::kMagic.size());
    out_.stream().write(reinterpret_cast<const char*>(&trace::kVersion), sizeof trace::kVersion);
    written_ = trace::kMagic.size() + sizeof trace::kVersion;
    json attention = options.attentionLayers ? json(*options.attentionLayers) : json("all");
    json meta = {{"model", {{"format", model.format}, {"path", model.path}, {"args", argsJson(model.args)}}},
                 {"run",
                  {{"prompt", run.prompt},
                   {"maxTokens", run.maxTokens},
                   {"temperature", run.sampling.temperature},
                   {"topK", run.sampling.topK},
                   {"topP", run.sampling.topP},
                   {"minP", run.sampling.minP},
                   {"seed", run.sampling.seed},
                   {"repeatPenalty", run.sampling.repeatPenalty},
                   {"repeatLastN", run.sampling.repeatLastN},
                   {"frequencyPenalty", run.sampling.frequencyPenalty},
                   {"presencePenalty", run.sampling.presencePenalty},
                   {"mirostat", run.sampling.mirostat},
                   {"mirostatTau", run.sampling.mirostatTau},
                   {"mirostatEta", run.sampling.mirostatEta},
                   {"grammar", run.grammar.empty() ? json(nullptr) : json(run.grammar)},
                   {"dryRun", run.dryRun}}},
                 {"whatIf", whatIfJson(run.whatIf)},
                 {"trace",
                  {{"summaries", options.summaries},
                   {"attentionLayers", attention},
                   {"preSoftmax", options.preSoftmax},
                   {"maxPositions", options.maxPositions},
                   {"topK", options.topK},
                   {"residual", options.residual},
                   {"lensTopK", lens ? options.lensTopK : 0}}}};
    if (run.batch) meta["batch"] = batchMetaJson(*run.batch);
    if (run.training)
        meta["training"] = {{"step", run.training->step},
                            {"window", run.training->window},
                            {"windows", run.training->windows},
                            {"learningRate", run.training->learningRate}};
    writeRecord(trace::kMetaRecord, jsonText(meta), {});
#ifndef LLAMA_NO_THREADS
    // At the engine's priority: while the engine's pool polls for its next loop (thread_pool.h),
    // its yields give the writer the core. At SCHED_IDLE, as before, it ran only once the queue
    // was full and the engine waited for it: a traced run took 3% longer (issue 35).
    writer_ = std::thread([this] { writerLoop(); });
#endif
}

TraceRecorder::~TraceRecorder() { stopWriter(); }

// The stages where storesValues may keep a tensor's values, or where the record reads the logits
// (top tokens) or a block's output (the lens): what reads() asks row-major copies for.
bool TraceRecorder::mayStoreValues(StageId stage, int layer) const {
    switch (stage) {
        case StageId::TokensTensor:
        case StageId::SequenceLoop:
        case StageId::Sample:
        case StageId::Mask:
        case StageId::KvMask: return true;
        case StageId::InputEmbeddings:
        case StageId::AttentionResidual: return options_.residual;
        case StageId::FfnResidual: return options_.residual || (lens_ && options_.lensTopK > 0);
        case StageId::Transposes:  // xq and keys, for a replay's cell arithmetic
        case StageId::ScoresMask:
            if (!options_.preSoftmax) return false;
            [[fallthrough]];
        case StageId::ScoresSoftmax: return !options_.attentionLayers || options_.attentionLayers->count(layer);
        default: return isTrainingStage(stage);
    }
}

StageReads TraceRecorder::reads(StageId stage, int layer) const {
    if (mayStoreValues(stage, layer)) return StageReads::Values;
    return options_.summaries ? StageReads::Statistics : StageReads::Shapes;
}

bool TraceRecorder::storesValues(const StageEvent& e, const std::string& name, const Tensor& t) const {
    if (!t.hasData()) return false;
    // Token ids: a few bytes, and every view needs them. A batch's ids, positions and cells go in
    // its stages' `batch` objects instead.
    if (t.dtype() == DType::I32) return !recordsBatch(e.stage);
    // A training step's gradients, each as the heatmap shows it; the largest (an 8B model's
    // embedding gradient) keep their summary only.
    if (isTrainingStage(e.stage)) return t.numel() <= trace::kMaxGradientValues;
    // The residual stream [seqLen, Dim]: what `diff` compares layer by layer.
    if (residualStage(e.stage)) return options_.residual && t.dim(0) <= options_.maxPositions;
    // The last dimension of the mask and the scores is the number of positions attended to.
    if (t.dim(-1) > options_.maxPositions) return false;
    if (e.stage == StageId::Mask || e.stage == StageId::KvMask) return true;
    // With preSoftmax, also the xq and keys the scores are made of: a replay can then show a cell's
    // arithmetic (q·k, / sqrt(HeadDim), + mask, softmax), as a live viewer does.
    const bool inputs = options_.preSoftmax && e.stage == StageId::Transposes && (name == "xq" || name == "keys");
    const bool attention = e.stage == StageId::ScoresSoftmax || (options_.preSoftmax && e.stage == StageId::ScoresMask) || inputs;
    return attention && (!options_.attentionLayers || options_.attentionLayers->count(e.layer));
}

void TraceRecorder::onStage(const StageEvent& e) {
    if (batchUsed_ == batch_.size()) batch_.emplace_back();
    PendingRecord& r = batch_[batchUsed_++];
    r.stage = e.stage;
    r.layer = e.layer;
    r.step = e.step;
    r.startPos = e.startPos;
    r.message.assign(e.message);
    r.extra.clear();
    r.data.clear();
    r.logits.reset();
    r.penalizedLogits.reset();
    r.tensorCount = 0;
    for (size_t i = 0; i < e.tensors.size(); ++i) {
        const auto& [name, t] = e.tensors[i];
        if (r.tensorCount == r.tensors.size()) r.tensors.emplace_back();
        PendingTensor& p = r.tensors[r.tensorCount++];
        p.name.assign(name);
        p.shape.assign(t->shape().begin(), t->shape().end());
        p.dtype = t->dtype();
        // Assigned over the last record's summary, so its vector of first values is reused.
        if (options_.summaries && t->hasData()) p.stats = e.stats(i);
        else p.stats.reset();
        p.valuesOffset = -1;
        p.repeat = 1;
        p.tokens.clear();
        if (storesValues(e, name, *t)) {
            p.valuesOffset = appendValues(*t, r.data);
            if (e.stage == StageId::Transposes && name == "keys")
                p.repeat = storeRepeatedHeadsOnce(r.data, size_t(p.valuesOffset), t->dim(0), headRepeat_);
            p.valuesBytes = r.data.size() - size_t(p.valuesOffset);
            if (t->dtype() == DType::I32) p.tokens = tokensBeforePad(*t);
        }
        if (e.stage == StageId::Sample && name == "logits" && options_.topK > 0 && t->hasData()) {
            r.logits = t->clone();
            if (const Tensor* penalized = e.tensorField(kPenalizedLogits)) r.penalizedLogits = penalized->clone();
        }
        if (e.stage == StageId::FfnResidual && name == "output" && lens_ && options_.lensTopK > 0 && t->dim(0) <= options_.maxPositions &&
            t->hasData()) {
            json lens = json::array();
            for (const auto& position : lens_->topTokens(*t, options_.lensTopK)) lens.push_back(topJson(*tokenizer_, position));
            r.extra += R"(,"lens":)" + jsonText(lens);
        }
        if (e.stage == StageId::CacheWrite && name == "xk") r.extra += fmt::format(R"(,"cacheFilled":{})", e.numberField("endCell").value_or(0));
    }
    if (recordsBatch(e.stage))
        if (const json batch = batchStageJson(e, *tokenizer_); !batch.is_null()) r.extra += R"(,"batch":)" + jsonText(batch);
    if (batchUsed_ == kBatchRecords) handOver();
}

void TraceRecorder::finish(const GenerationResult& r) {
    json prompt = json::array(), generated = json::array();
    for (int32_t id : r.promptTokens) prompt.push_back(tokenJson(*tokenizer_, id));
    for (int32_t id : r.generatedTokens) generated.push_back(tokenJson(*tokenizer_, id));
    writeEnd({{"promptTokens", prompt},
              {"generatedTokens", generated},
              {"text", r.text},
              {"stopReason", describe(r.stopReason)},
              {"prefillSeconds", r.prefillSeconds},
              {"decodeSeconds", r.decodeSeconds}});
}

void TraceRecorder::finishTraining(const std::vector<int32_t>& window, double seconds) {
    json prompt = json::array();
    for (int32_t id : window) prompt.push_back(tokenJson(*tokenizer_, id));
    writeEnd({{"promptTokens", prompt},
              {"generatedTokens", json::array()},
              {"text", ""},
              {"stopReason", "training step"},
              {"prefillSeconds", seconds},
              {"decodeSeconds", 0.0}});
}

void TraceRecorder::finishBatch(const ParallelResult& r, const std::vector<std::string>& prompts) {
    // The run's own token lists stay empty: each sequence has its own in "sequences".
    writeEnd({{"promptTokens", json::array()},
              {"generatedTokens", json::array()},
              {"text", ""},
              {"stopReason", "batch"},
              {"prefillSeconds", 0.0},
              {"decodeSeconds", r.seconds},
              {"sequences", batchSequencesJson(r.sequences, prompts, *tokenizer_)}});
}

void TraceRecorder::writeEnd(const nlohmann::json& end) {
    if (batchUsed_) handOver();
    stopWriter();
    {
        std::lock_guard lock(mutex_);
        if (failure_) std::rethrow_exception(failure_);
    }
    writeRecord(trace::kEndRecord, jsonText(end), {});
    out_.commit([&](const std::string& written) { requireTraceReadsBack(written, path_); });
}

}  // namespace llama
