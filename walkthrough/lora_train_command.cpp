#include "lora_train_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>

#include "formats/gguf/gguf_lora.h"
#include "interrupt.h"
#include "io/atomic_output.h"
#include "loss_curve_page.h"
#include "loss_curve_png.h"
#include "pass_progress.h"
#include "session/model_source.h"
#include "train/lora_finetune.h"
#include "training_data.h"
#include "training_watchers.h"

namespace llama::cli {

namespace fs = std::filesystem;

int runLoraTrain(const TrainOptions& o) {
    if (o.model.empty()) throw std::invalid_argument("--lora-rank fine-tunes a model: give its files with --model");
    if (o.resume || o.stopAt) throw std::invalid_argument("--resume and --stop-at are for training from scratch; a LoRA run writes its adapter at the end or at Ctrl-C");
    const std::vector<std::string> targets = parseLoraTargets(o.loraTargets);
    Model model = loadModel(o.model);
    widenWeightsToF32(model);
    const TrainingData data = readTrainingData(o, *model.tokenizer);
    const float alpha = o.loraAlpha > 0 ? float(o.loraAlpha) : float(o.loraRank);
    model.adapters.push_back(newLoraAdapter(model, o.loraRank, alpha, targets, o.recipe.seed));
    const LoraAdapter& adapter = model.adapters.back();
    int64_t parameters = 0;
    for (const auto& [name, pair] : adapter.pairs) parameters += pair.A.numel() + pair.B.numel();
    const TrainingRecipe& r = o.recipe;
    fmt::print("{}\n", data.describe(o));
    fmt::print("LoRA on {}: rank {}, alpha {} (scale {:g}), {} in each of {} layers: {} trained parameters; the model's own are frozen\n", o.model,
               o.loraRank, alpha, alpha / float(o.loraRank), o.loraTargets, model.args.n_layers, parameters);
    fmt::print("{}\n", data.describeRecipe(r));
    std::fflush(stdout);

    Trainer trainer = data.trainer(model, r);
    // Where fine-tuning starts from (B is zero: the model's own loss), to compare with where it ends.
    if (!o.heldout.empty()) fmt::print("Held-out loss before training: {:.6f}\n", trainer.heldoutLoss());
    TrainingWatchers watchers(o, model, trainer);
    // Ctrl-C stops the step under way; the adapter of the last whole step is written.
    const InterruptFlag interrupt;
    trainer.context().stopWhen(&InterruptFlag::requested);
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    std::vector<LossRecord> records;
    double runningLoss = 0;
    int running = 0;
    int64_t tokens = 0;  // trained on so far (chat examples' windows are as long as the examples)
    bool interrupted = false;
    while (trainer.stepsDone() < r.steps) {
        TrainingStepReport step;
        try {
            step = trainer.step();
        } catch (const GenerationStopped&) {
            interrupted = true;
            break;
        }
        watchers.stepDone(step.step);
        runningLoss += step.loss, ++running;
        tokens += step.tokens;
        const bool evaluate = !o.heldout.empty() && (step.step % r.evalEvery == 0 || step.step == r.steps);
        if (evaluate || step.step == r.steps || step.step % o.logEvery == 0) {
            LossRecord record{step.step, runningLoss / running, step.lr, tokens, elapsed(), std::nullopt};
            if (evaluate) record.heldoutLoss = trainer.heldoutLoss();
            records.push_back(record);
            fmt::print("{}\n", lossRecordJson(record));
            std::fflush(stdout);
            runningLoss = 0, running = 0;
        }
    }
    const fs::path out(o.out);
    fs::create_directories(out);
    const std::string file = (out / "adapter.gguf").string();
    writeLoraAdapter(file, adapter);
    std::string log;
    for (const LossRecord& record : records) log += lossRecordJson(record) + "\n";
    writeFileAtomically((out / "log.jsonl").string(), log);
    writeFileAtomically((out / "loss.html").string(), lossCurvePage(records, fmt::format("LoRA training loss: {}", o.out)));
    writeFileAtomically((out / "loss.png").string(), lossCurvePng(records, fmt::format("LoRA training loss: {}", o.out)));
    fmt::print("{} the adapter after {} steps to {} (llama.cpp's GGUF LoRA: --lora {} here and in llama-cli), the loss to log.jsonl, loss.html and loss.png, in {}\n",
               interrupted ? "Interrupted: wrote" : "Wrote", trainer.stepsDone(), file, file, duration(elapsed()));
    return interrupted ? 130 : 0;
}

}  // namespace llama::cli
