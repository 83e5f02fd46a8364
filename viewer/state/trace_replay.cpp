#include "state/trace_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "generate/generator.h"
#include "ml/ops.h"
#include <stdexcept>

namespace llama::viewer {

namespace {
// Knows only the tokens the trace named; enough for labels, tables and charts.
class TraceTokenizer : public Tokenizer {
public:
    TraceTokenizer(const TraceRun& run) : vocab_(run.args.vocab_size) {
        auto add = [&](int32_t id, const std::string& piece, bool special) { pieces_[id] = {piece, special}; };
        for (const auto& t : run.promptTokens) add(t.id, t.piece, t.special);
        for (const auto& t : run.generatedTokens) add(t.id, t.piece, t.special);
        for (const auto& s : run.stages) {
            for (const auto* top : {&s.top, &s.topPenalized})
                for (const auto& t : *top) pieces_.emplace(t.id, Piece{t.piece, false});
            for (const auto& position : s.lens)
                for (const auto& t : position) pieces_.emplace(t.id, Piece{t.piece, false});
            for (const auto& tensor : s.tensors)
                for (const auto& t : tensor.tokens) add(t.id, t.piece, t.special);
            if (s.ubatch)  // a batch trace names its tokens in its ubatch tables
                for (const auto& t : s.ubatch->tokens) add(t.token.id, t.token.piece, t.token.special);
        }
        for (const auto& seq : run.sequences)
            for (const auto* list : {&seq.promptTokens, &seq.generatedTokens})
                for (const auto& t : *list) add(t.id, t.piece, t.special);
    }
    std::vector<int32_t> encode(std::string_view, bool) const override {
        throw std::logic_error("a trace replay cannot encode new text");
    }
    std::string decodeToken(int32_t id) const override {
        auto it = pieces_.find(id);
        return it == pieces_.end() ? fmt::format("<{}>", id) : it->second.text;
    }
    int32_t vocabSize() const override { return vocab_; }
    bool isSpecial(int32_t id) const override {
        auto it = pieces_.find(id);
        return it != pieces_.end() && it->second.special;
    }
    std::optional<int32_t> specialId(std::string_view) const override { return std::nullopt; }
    int32_t bosId() const override { return -1; }
    std::vector<int32_t> stopIds() const override { return {}; }

private:
    struct Piece {
        std::string text;
        bool special;
    };
    std::map<int32_t, Piece> pieces_;
    int32_t vocab_;
};

// Token-id tensors come back as F32 values plus their ids up to the first pad; the viewer reads
// them as Int32, padded as they were.
Tensor replayTensor(const TracedTensor& t) {
    if (!t.tokens.empty()) {
        Tensor ids = ml::Full(t.shape, DType::I32, float(kPadId));
        for (size_t i = 0; i < t.tokens.size(); ++i) ids.mutableData<int32_t>()[i] = t.tokens[i].id;
        return ids;
    }
    return t.hasValues() ? t.values : Tensor::shapeOnly(t.shape, t.dtype);
}
}  // namespace

Model traceModel(const TraceRun& run, const std::string& path) {
    Model m;
    m.args = run.args;
    m.format = fmt::format("trace of {}", run.modelFormat);
    m.path = path;
    m.tokenizer = std::make_shared<TraceTokenizer>(run);
    return m;
}

std::string replayTrace(const TraceRun& run, CaptureObserver& capture, StepController& controller) {
    ReplayCursor cursor;
    replayTraceUpTo(run, run.stages.size(), cursor, capture, controller);
    return run.stopReason;
}

void replayTraceUpTo(const TraceRun& run, size_t to, ReplayCursor& cursor, CaptureObserver& capture, StepController& controller) {
    to = std::min(to, run.stages.size());
    std::vector<int32_t> window;
    if (run.run.training)
        for (const auto& t : run.promptTokens) window.push_back(t.id);
    const Tensor windowTokens = !window.empty() ? Tensor::fromInt32(window) : Tensor();
    for (size_t& index = cursor.next; index < to; ++index) {
        const TracedStage& s = run.stages[index];
        std::vector<Tensor> tensors;
        std::vector<RecordedTensor> recorded;
        for (const auto& t : s.tensors) {
            tensors.push_back(replayTensor(t));
            // Token ids come back as Int32 values: their statistics are computed from them, as live.
            recorded.push_back(t.tokens.empty() ? RecordedTensor{t.dtype, t.stats} : RecordedTensor{DType::I32, std::nullopt});
        }
        StageEvent event{.stage = s.stage, .layer = s.layer, .step = s.step, .startPos = s.startPos, .message = s.message};
        for (size_t i = 0; i < tensors.size(); ++i) event.tensors.push_back({s.tensors[i].name, &tensors[i]});
        // A training window's forward pass has no generation loop: its embedding names the window's
        // tokens (END's), as the live stage's field does.
        if (run.run.training && s.stage == StageId::InputEmbeddings) event.fields.emplace_back("inputTokens", windowTokens);
        auto probabilities = [](const std::vector<TraceTopToken>& tokens) {
            std::vector<TokenProbability> out;
            for (const auto& t : tokens) out.push_back({t.id, t.logit, t.probability});
            return out;
        };
        std::vector<std::vector<TokenProbability>> lens;
        for (const auto& position : s.lens) lens.push_back(probabilities(position));
        // The trace records the top tokens at the sample stage; the logits stage (where "Step token"
        // holds) shows them already, as a live run does.
        const TracedStage* tops = &s;
        if (s.stage == StageId::Logits)
            for (size_t j = index + 1; j < to && run.stages[j].step == s.step; ++j)
                if (run.stages[j].stage == StageId::Sample) tops = &run.stages[j];
        capture.onReplayedStage(event, {probabilities(tops->top), s.stage == StageId::Sample ? probabilities(s.topPenalized) : std::vector<TokenProbability>{}},
                                recorded, std::move(lens));
        controller.onStage(event);
        if (s.stage == StageId::Sample && cursor.generated < run.generatedTokens.size())
            capture.appendText(run.generatedTokens[cursor.generated++].piece);
    }
}

}  // namespace llama::viewer
