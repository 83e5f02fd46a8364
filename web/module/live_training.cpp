#include "live_training.h"

#include <fmt/format.h>

#include <chrono>
#include <set>
#include <stdexcept>

#include "generate/generator.h"
#include "model/inference_context.h"
#include "model/llama_transformer.h"
#include "tokenizer/tokenizer_file.h"
#include "trace/trace_recorder.h"
#include "train/initial_weights.h"
#include "train/token_stream.h"

namespace llama::web {

namespace {

using nlohmann::json;

int intSetting(const json& j, const char* key, int value, int lo, int hi) {
    if (!j.contains(key)) return value;
    if (!j[key].is_number_integer() || j[key].get<int64_t>() < lo || j[key].get<int64_t>() > hi)
        throw std::invalid_argument(fmt::format("training setting {}: {} is not a whole number from {} to {}", key, j[key].dump(), lo, hi));
    return j[key].get<int>();
}

float realSetting(const json& j, const char* key, float value, float lo, float hi) {
    if (!j.contains(key)) return value;
    if (!j[key].is_number() || !(j[key].get<double>() > lo) || j[key].get<double>() > hi)
        throw std::invalid_argument(fmt::format("training setting {}: {} is not a number above {}, at most {}", key, j[key].dump(), lo, hi));
    return j[key].get<float>();
}

}  // namespace

// Passes to a trace recorder, while one is set, the stages of the first window a training step
// runs, forward and backward (a step is `batch` windows, each the same stages with other
// numbers), and keeps that window's tokens for the trace's END record. Attached to the trainer's
// passes for good (the context has no way to detach one): without a recorder it reads nothing.
class LiveTraining::FirstWindow : public StageObserver {
public:
    StageReads reads(StageId stage, int layer) const override {
        if (!recorder) return StageReads::Handles;
        return stage == StageId::InputEmbeddings ? StageReads::Values : recorder->reads(stage, layer);
    }
    void onStage(const StageEvent& event) override {
        if (!recorder) return;
        if (const Tensor* ids = event.stage == StageId::InputEmbeddings ? event.tensorField("inputTokens") : nullptr)
            tokens.assign(ids->data<int32_t>(), ids->data<int32_t>() + ids->numel());
        // As one pass over the window (a prefill, step 0): a trace's steps count generated tokens,
        // and its readers refuse a later step without one; the marks carry the training step.
        StageEvent pass = event;
        pass.step = 0;
        recorder->onStage(pass);
        if (event.stage == StageId::InputEmbeddingsBackward) recorder = nullptr;  // the window's last stage
    }
    TraceRecorder* recorder = nullptr;
    std::vector<int32_t> tokens;
};

LiveTrainingSettings LiveTrainingSettings::fromJson(const json& j) {
    if (!j.is_object()) throw std::invalid_argument("the training settings are not a JSON object");
    static const std::set<std::string> known = {"dim", "n_layers", "n_heads", "n_kv_heads", "seq_len", "batch", "steps", "warmup", "lr", "seed"};
    for (const auto& [key, value] : j.items())
        if (!known.count(key)) throw std::invalid_argument(fmt::format("unknown training setting '{}'", key));
    LiveTrainingSettings s;
    // Small enough for a browser tab: the page trains a model of at most 1024 dimensions and 16 layers.
    TrainingShape& m = s.shape;
    m.dim = intSetting(j, "dim", m.dim, 8, 1024);
    m.nLayers = intSetting(j, "n_layers", m.nLayers, 1, 16);
    m.nHeads = intSetting(j, "n_heads", m.nHeads, 1, 64);
    m.nKVHeads = intSetting(j, "n_kv_heads", m.nKVHeads, 1, 64);
    TrainingRecipe& r = s.recipe;
    // F32 products: the browser has no BF16 dot-product instruction to gain from rounding them.
    r.bf16Products = false;
    r.seqLen = intSetting(j, "seq_len", r.seqLen, 2, 1024);
    r.batch = intSetting(j, "batch", r.batch, 1, 64);
    r.steps = intSetting(j, "steps", r.steps, 1, 1 << 20);
    r.warmup = intSetting(j, "warmup", r.warmup, 1, 1 << 20);
    r.lr = realSetting(j, "lr", r.lr, 0, 1);
    if (j.contains("seed")) {
        if (!j["seed"].is_number_integer() || j["seed"].get<int64_t>() < 0) throw std::invalid_argument(fmt::format("training setting seed: {} is not a whole number from 0", j["seed"].dump()));
        r.seed = j["seed"].get<uint64_t>();
    }
    return s;
}

std::string LiveTrainingSettings::trainCommand() const {
    const TrainingRecipe& r = recipe;
    return fmt::format("llama-walkthrough train --dim {} --n-layers {} --n-heads {} --n-kv-heads {} --seq-len {} --batch {} --steps {} --warmup {} "
                       "--lr {} --seed {}{}",
                       shape.dim, shape.nLayers, shape.nHeads, shape.nKVHeads, r.seqLen, r.batch, r.steps, r.warmup, r.lr, r.seed,
                       r.bf16Products ? "" : " --products f32");
}

LiveTraining::LiveTraining(const std::string& textPath, const std::string& tokenizerPath, const LiveTrainingSettings& settings)
    : settings_(settings), window_(std::make_unique<FirstWindow>()) {
    const auto tokenizer = loadTokenizerFile(tokenizerPath);
    TokenStream text = readTokenStream(textPath, "training text", *tokenizer);
    tokens_ = int64_t(text.tokens.size());
    const ModelArgs args = trainingModelArgs(settings_.shape, tokenizer->vocabSize(), settings_.recipe.seqLen, "the training settings");
    model_ = initialModel(args, settings_.recipe.seed, tokenizer);
    trainer_ = std::make_unique<Trainer>(model_, settings_.recipe, std::move(text.tokens), std::vector<int32_t>{});
    trainer_->context().addObserver(window_.get());
}

LiveTraining::~LiveTraining() = default;

int64_t LiveTraining::parameters() const {
    int64_t n = 0;
    for (const auto& [name, t] : model_.tensors) n += t.numel();
    return n;
}

LiveTrainingSteps LiveTraining::steps(int count) {
    if (trainer_->stepsDone() >= settings_.recipe.steps)
        throw std::invalid_argument(fmt::format("the training has done all its {} steps; start it again for more", settings_.recipe.steps));
    LiveTrainingSteps out;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < count && trainer_->stepsDone() < settings_.recipe.steps; ++i) {
        const TrainingStepReport report = trainer_->step();
        out.losses.push_back(report.loss);
        out.lr = report.lr;
    }
    out.step = trainer_->stepsDone();
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double tokens = double(out.losses.size()) * settings_.recipe.batch * settings_.recipe.seqLen;
    out.tokensPerSecond = out.seconds > 0 ? tokens / out.seconds : 0;
    return out;
}

std::string LiveTraining::sample(const std::string& prompt, int maxTokens, float temperature, uint64_t seed) const {
    const LlamaTransformer transformer(model_);
    InferenceContext ctx(model_.args);
    Sampler sampler(SamplingSettings{.temperature = temperature, .seed = seed});
    return Generator(transformer, *model_.tokenizer).generate(ctx, Prompt(prompt), maxTokens, sampler, [](const std::string&) {}).text;
}

LiveTrainingSteps LiveTraining::recordedStep(const std::string& tracePath) {
    TraceOptions options;
    options.preSoftmax = true;  // the page shows each attention cell's arithmetic
    const int step = trainer_->stepsDone() + 1;
    TraceRunInfo run{.prompt = fmt::format("training step {}: its first window of {}", step, settings_.recipe.batch), .maxTokens = 0};
    // A training step's window, as `train --trace` records one (trace format 4).
    run.training = TraceTrainingInfo{step, 0, settings_.recipe.batch, learningRate(settings_.recipe, step - 1)};
    TraceRecorder recorder(tracePath, model_, run, options);
    window_->recorder = &recorder;
    window_->tokens.clear();
    const auto start = std::chrono::steady_clock::now();
    LiveTrainingSteps out;
    try {
        out = steps(1);
    } catch (...) {
        window_->recorder = nullptr;
        throw;
    }
    window_->recorder = nullptr;
    out.window = model_.tokenizer->decode(window_->tokens);
    recorder.finishTraining(window_->tokens, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return out;
}

}  // namespace llama::web
