#include "state/run_history.h"

#include <algorithm>
#include <cstdio>

#include "generate/generator.h"
#include "ml/ops.h"

namespace llama::viewer {

namespace {
size_t dataBytes(const CapturedTensor& t) { return t.data ? t.data->byteSize() : 0; }
}  // namespace

const CapturedTensor* StageRecord::find(std::string_view name) const {
    for (const auto& t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

int32_t parseSampledToken(const std::string& message) {
    int id = -1;
    if (std::sscanf(message.c_str(), "Sampled next token %d", &id) == 1) return id;
    return -1;
}

void RunHistory::add(const StageEvent& event, SampleTops tops, const std::vector<RecordedTensor>* recorded,
                     std::vector<std::vector<TokenProbability>> lens) {
    if (!steps_.empty() && event.step > steps_.back().step) dropOldTensors(event.step);

    auto record = std::make_shared<StageRecord>();
    record->index = int(records_.size());
    record->stage = event.stage;
    record->layer = event.layer;
    record->step = event.step;
    record->startPos = event.startPos;
    record->message = event.message;
    record->lens = std::move(lens);
    for (size_t i = 0; i < event.tensors.size(); ++i) {
        const StageTensor& st = event.tensors[i];
        const RecordedTensor* r = recorded && record->tensors.size() < recorded->size() ? &(*recorded)[record->tensors.size()] : nullptr;
        CapturedTensor c{st.name, st.tensor->shape(), r ? r->dtype : st.tensor->dtype(), r && r->stats ? *r->stats : event.stats(i), std::nullopt};
        // A replayed stage's values are a trace's, never written again: shared, not copied (the live
        // page's replay holds them as compactly as its reader made them).
        if (st.tensor->hasData()) c.data = recorded ? *st.tensor : st.tensor->clone();
        tensorBytes_ += dataBytes(c);
        record->tensors.push_back(std::move(c));
    }

    // The token ids: the prompt at stage 2, then each step's input tokens at their positions.
    if (event.stage == StageId::TokensTensor && !record->tensors.empty() && record->tensors[0].data) {
        promptTokens_ = tokensBeforePad(*record->tensors[0].data);
    }
    // A step starts at the generation loop's stage 3 with its tokens; a forward pass called without
    // the loop (a training window) at its embedding, whose tokens it names.
    auto openStep = [&](const Shape& shape, const Tensor* ids) {
        StepInfo s;
        s.step = event.step;
        s.startPos = event.startPos;
        s.seqLen = int(shape.at(0));
        steps_.push_back(s);
        if (ids) {
            positionTokens_.resize(size_t(event.startPos));
            for (int64_t i = 0; i < ids->numel(); ++i) positionTokens_.push_back(ids->data<int32_t>()[i]);
        }
    };
    if (event.stage == StageId::SequenceLoop && !record->tensors.empty()) {
        const CapturedTensor& in = record->tensors[0];
        openStep(in.shape, in.data ? &*in.data : nullptr);
    }
    if (event.stage == StageId::InputEmbeddings && (steps_.empty() || steps_.back().step != event.step))
        if (const Tensor* ids = event.tensorField("inputTokens"); ids && ids->hasData() && ids->dtype() == DType::I32) {
            openStep(ids->shape(), ids);
            if (promptTokens_.empty()) promptTokens_ = tokensBeforePad(*ids);
        }
    if (!steps_.empty() && steps_.back().step == event.step) {
        record->seqLen = steps_.back().seqLen;
        // The top tokens come at the logits stage (what "Step token" shows before the sampler
        // picks), or at the sample stage when the logits stage gave none.
        if (event.stage == StageId::Logits && !tops.top.empty()) steps_.back().top = std::move(tops.top);
        if (event.stage == StageId::Sample) {
            StepInfo& s = steps_.back();
            if (!tops.top.empty()) s.top = std::move(tops.top);
            s.topPenalized = std::move(tops.penalized);
            s.sampled = parseSampledToken(event.message);
            for (const auto& t : s.topPenalized.empty() ? s.top : s.topPenalized)
                if (t.id == s.sampled) s.sampledProbability = t.probability;
        }
    }
    records_.push_back(std::move(record));
    dropOldestWhile([this] { return tensorBytes_ > policy_.budget; });
}

void RunHistory::setLens(size_t index, std::vector<std::vector<TokenProbability>> lens) {
    auto r = std::make_shared<StageRecord>(*records_.at(index));
    r->lens = std::move(lens);
    replaceRecord(index, std::move(r));
}

void RunHistory::replaceRecord(size_t i, std::shared_ptr<StageRecord> r) {
    records_[i] = std::move(r);
    ++replacements_;
}

bool isAttentionStage(StageId stage) {
    return stage == StageId::Transposes || stage == StageId::ScoresMask || stage == StageId::ScoresSoftmax;
}

void RunHistory::dropOldTensors(int currentStep) {
    for (size_t i = firstUntrimmed_; i < records_.size(); ++i) {
        if (records_[i]->step >= currentStep) break;
        size_t bytes = 0;
        bool big = false;
        for (const auto& t : records_[i]->tensors) big |= dataBytes(t) >= policy_.keepOldTensorsBelow, bytes += dataBytes(t);
        if (big && records_[i]->step == 0 && isAttentionStage(records_[i]->stage) && keptAttentionBytes_ + bytes <= policy_.prefillAttentionBudget) {
            // Kept whole, outside the older steps' budget (and never dropped by it).
            keptAttention_.resize(records_.size());
            keptAttention_[i] = true;
            keptAttentionBytes_ += bytes;
            firstUntrimmed_ = i + 1;
            continue;
        }
        if (big) {
            // Records are shared with the UI's snapshot, so trim a copy and swap it in.
            auto trimmed = std::make_shared<StageRecord>(*records_[i]);
            for (auto& t : trimmed->tensors)
                if (dataBytes(t) >= policy_.keepOldTensorsBelow) {
                    tensorBytes_ -= dataBytes(t);
                    t.data.reset();
                }
            replaceRecord(i, std::move(trimmed));
        }
        for (const auto& t : records_[i]->tensors) olderBytes_ += dataBytes(t);
        firstUntrimmed_ = i + 1;
    }
    dropOldestWhile([this] { return olderBytes_ > policy_.olderStepsBudget; });
}

template <typename Over> void RunHistory::dropOldestWhile(Over over) {
    for (; firstWithData_ < records_.size() && over(); ++firstWithData_) {
        const StageRecord& r = *records_[firstWithData_];
        if (std::none_of(r.tensors.begin(), r.tensors.end(), [](const auto& t) { return t.data.has_value(); })) continue;
        if (firstWithData_ < keptAttention_.size() && keptAttention_[firstWithData_]) continue;
        auto trimmed = std::make_shared<StageRecord>(r);
        for (auto& t : trimmed->tensors) {
            tensorBytes_ -= dataBytes(t);
            if (firstWithData_ < firstUntrimmed_) olderBytes_ -= dataBytes(t);
            t.data.reset();
        }
        replaceRecord(firstWithData_, std::move(trimmed));
    }
}

namespace {
struct StepOrder {
    bool operator()(const std::shared_ptr<const StageRecord>& r, int step) const { return r->step < step; }
    bool operator()(int step, const std::shared_ptr<const StageRecord>& r) const { return step < r->step; }
};
}  // namespace

std::span<const std::shared_ptr<const StageRecord>> stepRecords(const std::vector<std::shared_ptr<const StageRecord>>& records, int step) {
    const auto [first, last] = std::equal_range(records.begin(), records.end(), step, StepOrder{});
    return {records.data() + (first - records.begin()), size_t(last - first)};  // (pointer, count): the browser build's libc++ has no span(iterator, iterator)
}

const StepInfo* stepWithTop(const std::vector<StepInfo>& steps, int upTo) {
    const StepInfo* found = nullptr;
    for (const auto& s : steps) {
        if (s.step > upTo) break;
        if (!s.top.empty()) found = &s;
    }
    return found;
}

Tensor nextTokenLogits(const Tensor& logits) {
    if (logits.rank() != 2) return logits;
    const int64_t rows = logits.dim(0);
    return ml::Reshape(ml::Slice(logits, rows - 1, rows), {logits.dim(1)});
}

const StageRecord* findRecord(const std::vector<std::shared_ptr<const StageRecord>>& records, int step, int layer, StageId stage) {
    const auto span = stepRecords(records, step);
    for (auto it = span.rbegin(); it != span.rend(); ++it)
        if ((*it)->layer == layer && (*it)->stage == stage) return it->get();
    return nullptr;
}

std::string gradientNorm(const std::string& message, const std::string& name) {
    const std::string key = "|" + name + "| ";
    const size_t at = message.find(key);
    if (at == std::string::npos) return "";
    const size_t start = at + key.size(), end = message.find_first_of(",)", start);
    return message.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace llama::viewer
