#include "session/session.h"

#include <stdexcept>

namespace llama {

void Session::load(const ModelSource& source, const LoadOptions& options) {
    auto model = std::make_shared<const Model>(loadModelSource(source, options));
    transformer_ = std::make_unique<LlamaTransformer>(*model);
    model_ = std::move(model);
    shapesOnly_ = options.shapesOnly;
}

const Model& Session::loadedModel() const {
    if (!model_) throw std::logic_error("no model is loaded");
    return *model_;
}

std::string Session::promptText() const {
    const GenerationSettings& s = settings_;
    return formatPrompt(s.mode, s.system, s.prompt, chatFormatFor(*loadedModel().tokenizer));
}

std::vector<int32_t> Session::promptTokens() const { return loadedModel().tokenizer->encode(promptText(), true); }

GenerationResult Session::run(const std::function<void(const std::string&)>& onText) {
    const Model& model = loadedModel();
    InferenceContext ctx(model.args, shapesOnly_);
    for (StageObserver* o : observers_) ctx.addObserver(o);
    Sampler sampler(settings_.sampling);
    Generator generator(*transformer_, *model.tokenizer);
    // Published for requestStop while the run lasts, however it ends.
    struct Running {
        Session& s;
        Running(Session& session, InferenceContext& ctx) : s(session) {
            std::lock_guard lock(s.runningMutex_);
            s.running_ = &ctx;
        }
        ~Running() {
            std::lock_guard lock(s.runningMutex_);
            s.running_ = nullptr;
        }
    } running(*this, ctx);
    return generator.generate(ctx, promptText(), settings_.maxTokens, sampler, onText);
}

void Session::requestStop() {
    std::lock_guard lock(runningMutex_);
    if (running_) running_->requestStop();
}

}  // namespace llama
