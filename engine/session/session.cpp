#include "session/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "formats/gguf/gguf_control_vector.h"
#include "generate/grammar_matcher.h"

namespace llama {

namespace {
// The grammar over the tokenizer's vocabulary; refused before the run when it allows no token at
// the first step (a grammar of characters no token has).
std::shared_ptr<GrammarConstraint> grammarConstraint(std::shared_ptr<const Grammar> grammar, const std::string& source, const Tokenizer& tokenizer,
                                                     bool shapesOnly) {
    std::vector<std::string> texts(size_t(tokenizer.vocabSize()));
    for (int32_t id = 0; id < tokenizer.vocabSize(); ++id) texts[size_t(id)] = tokenizer.decodeToken(id);
    auto constraint = std::make_shared<GrammarConstraint>(std::move(grammar), std::move(texts), tokenizer.stopIds());
    if (!shapesOnly) {
        std::vector<float> logits(size_t(tokenizer.vocabSize()), 0.0f);
        try {
            constraint->mask(logits.data(), int64_t(logits.size()));
        } catch (const std::runtime_error& e) {
            throw std::invalid_argument(fmt::format("{}: {}", source.empty() ? "grammar" : source, e.what()));
        }
    }
    return constraint;
}
}  // namespace

void Session::load(const ModelSource& source, const LoadOptions& options) {
    auto model = std::make_shared<const Model>(loadModelSource(source, options));
    transformer_ = std::make_unique<LlamaTransformer>(*model);
    model_ = std::move(model);
    shapesOnly_ = options.shapesOnly;
}

void Session::unload() {
    transformer_.reset();
    model_.reset();
    draftModel_.reset();
    draftModelPath_.clear();
}

const Model& Session::loadedModel() const {
    if (!model_) throw std::logic_error("no model is loaded");
    return *model_;
}

const LlamaTransformer& Session::transformer() const {
    loadedModel();
    return *transformer_;
}

Prompt Session::prompt() const {
    const GenerationSettings& s = settings_;
    return formatPrompt(s.mode, s.system, s.prompt, chatFormatFor(*loadedModel().tokenizer), s.allowSpecial);
}

std::vector<int32_t> Session::promptTokens() const { return prompt().encode(*loadedModel().tokenizer); }

GenerationResult Session::run(const std::function<void(const std::string&)>& onText) {
    const Model& model = loadedModel();
    settings_.whatIf.validate(model.args.n_layers, model.args.n_heads);
    // A trace records the control vectors' files, not their values: a replayed run's are read again.
    if (const auto& s = settings_.whatIf.steering; s && s->directions.empty() && !s->files.empty())
        settings_.whatIf.steering = loadSteering(s->files, s->layers);
    if (settings_.whatIf.steering) settings_.whatIf.steering->validate(model.args.dim, model.args.n_layers);
    // --rope-theta and --compute-dtype bind a transformer of other angles or dtype for this run;
    // the loaded one stays.
    std::optional<LlamaTransformer> experiment;
    if (settings_.whatIf.ropeTheta || settings_.whatIf.computeDType) experiment.emplace(model, settings_.whatIf);
    // Speculative decoding runs the loaded transformer (runSpeculative).
    const LlamaTransformer& runs = experiment && !settings_.speculative() ? *experiment : *transformer_;
    if (settings_.warmUp && !shapesOnly_) {
        // Its own context, no observers: the run's cache, stages and results are as without it.
        InferenceContext warm(model.args, false, runs.ComputeDType);
        const int32_t bos = model.tokenizer->bosId() >= 0 ? model.tokenizer->bosId() : 0;
        runs.Forward(warm, Tensor::fromInt32(std::vector<int32_t>(size_t(std::min(2, model.args.max_seq_len)), bos)), 0, LogitRows::Last);
    }
    InferenceContext ctx(model.args, shapesOnly_, runs.ComputeDType);
    ctx.whatIf = settings_.whatIf;
    for (StageObserver* o : observers_) ctx.addObserver(o);
    if (settings_.speculative()) return runSpeculative(ctx, onText);
    Sampler sampler(settings_.sampling);
    if (settings_.grammar) sampler.constrain(grammarConstraint(settings_.grammar, settings_.grammarSource, *model.tokenizer, shapesOnly_));
    Generator generator(runs, *model.tokenizer);
    stop_ = false;
    ctx.stopWhen(&stop_);
    return generator.generate(ctx, prompt(), settings_.maxTokens, sampler, onText);
}

ParallelResult Session::runParallel(const std::vector<std::string>& prompts, ParallelSettings parallel,
                                    const std::function<void(int, const std::string&)>& onText) {
    const Model& model = loadedModel();
    settings_.whatIf.requireOneSequence("batch");
    // The text every prompt starts with must leave each of them room.
    if (const size_t n = formatPrompt(settings_.mode, settings_.system, "", chatFormatFor(*model.tokenizer), settings_.allowSpecial)
                             .encode(*model.tokenizer)
                             .size();
        !settings_.system.empty() && int(n) >= model.args.max_seq_len)
        throw std::invalid_argument(fmt::format("--system is {} tokens (with the prompt's template): the context holds {} positions, and every "
                                                "prompt follows it; give a shorter --system or a larger --max-seq-len",
                                                n, model.args.max_seq_len));
    std::vector<std::vector<int32_t>> tokens;
    for (const std::string& text : prompts)
        tokens.push_back(formatPrompt(settings_.mode, settings_.system, text, chatFormatFor(*model.tokenizer), settings_.allowSpecial)
                             .encode(*model.tokenizer));
    InferenceContext ctx(model.args, shapesOnly_, transformer_->ComputeDType);
    for (StageObserver* o : observers_) ctx.addObserver(o);
    stop_ = false;
    ctx.stopWhen(&stop_);
    parallel.sampling = settings_.sampling;
    parallel.maxTokens = settings_.maxTokens;
    return ParallelGenerator(*transformer_, *model.tokenizer).generate(ctx, tokens, parallel, onText);
}

GenerationResult Session::runSpeculative(InferenceContext& ctx, const std::function<void(const std::string&)>& onText) {
    const Model& model = loadedModel();
    const GenerationSettings& s = settings_;
    s.whatIf.requireOneSequence("speculative decoding");
    if (s.sampling.temperature > 0 || s.sampling.penalizes())
        throw std::invalid_argument("speculative decoding here checks drafts against the target's greedy choice: give --temperature 0 and no "
                                    "repetition penalties");
    if (s.grammar) throw std::invalid_argument("speculative decoding here checks drafts against the target's unconstrained greedy choice: no grammar");
    if (!s.draftModel.empty() && s.draftLayers > 0) throw std::invalid_argument("give --draft-model or --draft-layers, not both");
    if (s.draftMax < 1) throw std::invalid_argument(fmt::format("--draft-max {}: at least 1 token", s.draftMax));
    std::optional<LlamaTransformer> draft;
    if (s.draftLayers > 0) {
        draft.emplace(firstLayers(*transformer_, s.draftLayers));
    } else {
        if (s.draftModel != draftModelPath_ || !draftModel_) {
            draftModel_ = std::make_shared<const Model>(loadModelSource({ModelSource::Kind::Files, s.draftModel}, {.shapesOnly = shapesOnly_}));
            draftModelPath_ = s.draftModel;
        }
        requireSameVocabulary(*model.tokenizer, *draftModel_->tokenizer, s.draftModel);
        draft.emplace(*draftModel_);
    }
    InferenceContext draftCtx(s.draftLayers > 0 ? model.args : draftModel_->args, shapesOnly_);
    draftCtx.maxSeqLen = std::min(draftCtx.maxSeqLen, ctx.maxSeqLen);
    return SpeculativeGenerator(*transformer_, *draft, *model.tokenizer, s.draftMax, s.nUbatch).generate(ctx, draftCtx, promptTokens(), s.maxTokens, onText);
}

void Session::requestStop() { stop_ = true; }

InferenceContext Session::newContext() const { return InferenceContext(loadedModel().args, shapesOnly_); }

Tensor Session::forward(InferenceContext& ctx, const std::vector<int32_t>& tokens, int startPos, LogitRows rows) const {
    return transformer().Forward(ctx, Tensor::fromInt32(tokens), startPos, rows);
}

}  // namespace llama
