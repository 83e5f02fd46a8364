// Trainer::save and Trainer::restore: a training run's checkpoint directory.
//   consolidated.00.pth, params.json, tokenizer.model   the weights in Meta's layout, F32
//   optimizer.pth    AdamW's moments: exp_avg.<name> and exp_avg_sq.<name> (torch.save's format)
//   training.json    the step, the recipe, the window generator's state and the caller's extra
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "formats/meta/meta_export.h"
#include "formats/meta/torch_checkpoint.h"
#include "formats/meta/torch_save.h"
#include "io/atomic_output.h"
#include "io/input_file.h"
#include "train/trainer.h"

namespace llama {

namespace {

namespace fs = std::filesystem;

nlohmann::json recipeJson(const TrainingRecipe& r, const ModelArgs& a, bool wholeExamples) {
    nlohmann::json recipe = {{"seq_len", r.seqLen}, {"batch", r.batch}, {"steps", r.steps}, {"warmup", r.warmup}, {"lr", r.lr},
            {"min_lr_frac", r.minLrFrac}, {"weight_decay", r.weightDecay}, {"clip", r.clip}, {"eval_every", r.evalEvery},
            {"seed", r.seed}, {"dim", a.dim}, {"n_layers", a.n_layers}, {"n_heads", a.n_heads}, {"n_kv_heads", a.n_kv_heads},
            {"vocab_size", a.vocab_size}, {"ffn_hidden_dim", a.ffnHiddenDim()}, {"rope_theta", a.rope_theta}, {"norm_eps", a.norm_eps}};
    // Only when set, so that checkpoints of pretraining from a random start read as they always did.
    if (!r.initFrom.empty()) recipe["init_from"] = r.initFrom;
    if (r.bf16Products) recipe["products"] = "bf16";  // absent: F32, as checkpoints made before bf16 products read
    if (wholeExamples) recipe["windows"] = "whole examples";
    for (const LrPoint& p : r.lrSchedule) recipe["lr_schedule"].push_back({p.step, p.lr});
    return recipe;
}

}  // namespace

void Trainer::save(const std::string& dir, const std::string& extra) const {
    exportMeta(model_, DType::F32, dir);
    std::vector<NamedTensor> moments;
    const auto& entries = grads_.entries();
    for (size_t k = 0; k < entries.size(); ++k) {
        moments.push_back({"exp_avg." + entries[k].name, adamw_.expAvg[k]});
        moments.push_back({"exp_avg_sq." + entries[k].name, adamw_.expAvgSq[k]});
    }
    writeTorchSave((fs::path(dir) / "optimizer.pth").string(), moments, DType::F32);
    std::ostringstream windows;
    windows << windows_;
    const nlohmann::json state = {{"step", stepsDone()}, {"recipe", recipeJson(recipe_, model_.args, !examples_.empty())}, {"windows", windows.str()}, {"extra", extra}};
    writeFileAtomically((fs::path(dir) / "training.json").string(), state.dump(1) + "\n");
}

std::string Trainer::restore(const std::string& dir) {
    const std::string path = (fs::path(dir) / "training.json").string();
    nlohmann::json state;
    try {
        state = nlohmann::json::parse(readInputFile(path, "training state"));
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(fmt::format("'{}' is not a training state: {}", path, e.what()));
    }
    const nlohmann::json want = recipeJson(recipe_, model_.args, !examples_.empty());
    if (!state.contains("recipe") || !state["recipe"].is_object() || !state.contains("step") || !state["step"].is_number_integer() ||
        !state.contains("windows") || !state["windows"].is_string())
        throw std::invalid_argument(fmt::format("'{}' lacks the step, the recipe or the windows' state of a training run", path));
    // Both ways: a setting only one of them has (init_from) differs too.
    nlohmann::json keys = want;
    keys.update(state["recipe"]);
    for (const auto& [key, unused] : keys.items())
        if (state["recipe"].value(key, nlohmann::json()) != want.value(key, nlohmann::json()))
            throw std::invalid_argument(fmt::format("'{}' was trained with {} = {}, this run asks for {}: resume with the same settings", path, key,
                                                    state["recipe"].value(key, nlohmann::json()).dump(), want.value(key, nlohmann::json()).dump()));
    const int step = state["step"];
    if (step < 0 || step > recipe_.steps) throw std::invalid_argument(fmt::format("'{}': step {} is outside the run's 0 to {}", path, step, recipe_.steps));

    const std::string optimizerPath = (fs::path(dir) / "optimizer.pth").string();
    const TorchCheckpoint optimizer = TorchCheckpoint::load(optimizerPath);
    const auto& entries = grads_.entries();
    for (size_t k = 0; k < entries.size(); ++k)
        for (auto [prefix, moment] : {std::pair{"exp_avg.", &adamw_.expAvg[k]}, std::pair{"exp_avg_sq.", &adamw_.expAvgSq[k]}}) {
            const Tensor* saved = optimizer.find(prefix + entries[k].name);
            if (!saved || saved->shape() != moment->shape() || saved->dtype() != DType::F32)
                throw std::invalid_argument(fmt::format("'{}' has no F32 {}{} of shape {}", optimizerPath, prefix, entries[k].name, moment->shapeStr()));
            *moment = saved->clone();
        }
    std::istringstream windows(state["windows"].get<std::string>());
    windows >> windows_;
    if (!windows) throw std::invalid_argument(fmt::format("'{}': the windows' state does not read back", path));
    adamw_.restoreSteps(step);
    return state.value("extra", std::string());
}

}  // namespace llama
