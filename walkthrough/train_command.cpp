#include "train_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "formats/gguf/gguf_export.h"
#include "formats/meta/meta_model.h"
#include "interrupt.h"
#include "io/atomic_output.h"
#include "lora_train_command.h"
#include "loss_curve_page.h"
#include "loss_curve_png.h"
#include "options/checked_option.h"
#include "pass_progress.h"
#include "session/model_source.h"
#include "tokenizer/tokenizer_file.h"
#include "train/initial_weights.h"
#include "train/lr_schedule.h"
#include "train/trainer.h"
#include "train_profile.h"
#include "training_data.h"
#include "training_watchers.h"

namespace llama::cli {

namespace {

namespace fs = std::filesystem;

ModelArgs modelArgs(const TrainOptions& o, int vocabSize) {
    return trainingModelArgs({o.dim, o.nLayers, o.nHeads, o.nKVHeads, o.multipleOf, o.ffnDimMultiplier, o.ropeTheta}, vocabSize, o.recipe.seqLen,
                             "the train options");
}

const char* const kShapeFlags[] = {"--dim", "--n-layers", "--n-heads", "--n-kv-heads", "--multiple-of", "--ffn-dim-multiplier", "--rope-theta"};

// --init-from takes the shape from the model's file: a shape flag may restate it, not change it.
void requireShapeFlagsAgree(const TrainOptions& o, const Model& source) {
    auto given = [&](const std::string& flag) { return std::ranges::find(o.given, flag) != o.given.end(); };
    if (given("--tokenizer"))
        throw std::invalid_argument(fmt::format("--tokenizer: the model --init-from names ('{}') brings its own tokenizer; leave --tokenizer out", o.recipe.initFrom));
    const ModelArgs& a = source.args;
    ModelArgs ffn = a;
    if (given("--multiple-of")) ffn.multiple_of = o.multipleOf;
    if (given("--ffn-dim-multiplier")) ffn.ffn_dim_multiplier = o.ffnDimMultiplier;
    const std::string ffnWidth = fmt::format("an FFN width of {} (this flag makes it {})", a.ffnHiddenDim(), ffn.ffnHiddenDim());
    const std::tuple<const char*, bool, std::string> flags[] = {
        {"--dim", o.dim == a.dim, fmt::format("dim {}", a.dim)},
        {"--n-layers", o.nLayers == a.n_layers, fmt::format("n_layers {}", a.n_layers)},
        {"--n-heads", o.nHeads == a.n_heads, fmt::format("n_heads {}", a.n_heads)},
        {"--n-kv-heads", o.nKVHeads == a.n_kv_heads, fmt::format("n_kv_heads {}", a.n_kv_heads)},
        {"--multiple-of", ffn.ffnHiddenDim() == a.ffnHiddenDim(), ffnWidth},
        {"--ffn-dim-multiplier", ffn.ffnHiddenDim() == a.ffnHiddenDim(), ffnWidth},
        {"--rope-theta", o.ropeTheta == a.rope_theta, fmt::format("rope_theta {}", a.rope_theta)}};
    for (const auto& [flag, agrees, stated] : flags)
        if (given(flag) && !agrees)
            throw std::invalid_argument(fmt::format("{} disagrees with the model --init-from names: '{}' has {}; its shape comes from the file, leave {} out",
                                                    flag, o.recipe.initFrom, stated, flag));
}

}  // namespace

CLI::App* addTrainCommand(CLI::App& app, TrainOptions& o) {
    CLI::App* cmd = app.add_subcommand("train", "Train a Llama from scratch on a text file with the engine's own backward pass (assets/train.py's recipe), "
                                                 "or fine-tune one on chat examples (--init-from, --sft)");
    cmd->add_option("--text", o.text, "UTF-8 training text; a line holding only a form feed separates documents (assets/make_corpus.py's chapters)")
        ->option_text("FILE");
    cmd->add_option("--sft", o.sft,
                    "In place of --text, fine-tune on chat examples: JSON lines of {\"messages\": [user, assistant, ...]} "
                    "(assets/make_chat_corpus.py), each a whole window, the loss on the assistant's replies only; use with --init-from")
        ->option_text("FILE");
    cmd->add_option("--heldout", o.heldout, "Text (or, with --sft, chat examples) for the held-out loss, never trained on")->option_text("FILE");
    cmd->add_option("--tokenizer", o.tokenizer, "A Llama 3 tiktoken tokenizer.model (with Llama 3's special tokens)")->option_text("FILE");
    cmd->add_option("--out", o.out,
                    "Directory for the checkpoint (Meta's layout in F32, optimizer.pth, training.json), model.gguf (F32) and the loss "
                    "(log.jsonl, loss.html, loss.png)")
        ->option_text("DIR REQUIRED")
        ->required();
    cmd->add_flag("--force", o.force, "Replace what --out holds");
    cmd->add_flag("--resume", o.resume, "Go on from the checkpoint in --out (same options), to the same bits as a run never stopped");
    options::addInteger(*cmd, "--stop-at", o.stopAt, {0, 1 << 24, "a step from 1 (0: none)"},
                        "Stop after this step with a checkpoint, as Ctrl-C would (--resume goes on)");
    options::addInteger(*cmd, "--log-every", o.logEvery, {1, 1 << 24, "1 to 16777216 steps"}, "Steps between lines of the loss log");
    options::addReal(*cmd, "--checkpoint-minutes", o.checkpointMinutes, {0, 1e6, false, "minutes from 0"}, "Minutes between checkpoints");
    TrainingRecipe& r = o.recipe;
    options::addInteger(*cmd, "--seq-len", r.seqLen, {2, 1 << 16, "a window of 2 to 65536 tokens"}, "Tokens per training window");
    options::addInteger(*cmd, "--batch", r.batch, {1, 1 << 16, "1 to 65536 windows"}, "Windows per step");
    options::addInteger(*cmd, "--steps", r.steps, {1, 1 << 24, "1 to 16777216 steps"}, "Optimizer steps");
    options::addInteger(*cmd, "--warmup", r.warmup, {1, 1 << 24, "1 to 16777216 steps"}, "Steps of linear learning-rate warmup");
    options::addReal(*cmd, "--lr", r.lr, {0, 1, true, "a learning rate above 0, at most 1"}, "Peak learning rate");
    options::addReal(*cmd, "--min-lr-frac", r.minLrFrac, {0, 1, false, "a fraction from 0 to 1"}, "The cosine decays to this fraction of --lr");
    cmd->add_option("--lr-schedule", o.lrSchedule,
                    "Past the warmup, follow a recorded run's learning rates in place of the cosine: JSON lines of "
                    "{\"step\": N, \"lr\": RATE} (the rate of step N, counted from 1; train.py's log.jsonl; assets/shipped_lr.py "
                    "writes the bundled model's), linearly interpolated between records")
        ->option_text("FILE");
    options::addReal(*cmd, "--wd", r.weightDecay, {0, 1, false, "a weight decay from 0 to 1"}, "AdamW's weight decay (matrices only)");
    options::addReal(*cmd, "--clip", r.clip, {0, 1e6, true, "a norm above 0"}, "Clip the gradients' global norm to this");
    options::addInteger(*cmd, "--eval-every", r.evalEvery, {1, 1 << 24, "1 to 16777216 steps"}, "Steps between held-out losses (with --heldout)");
    cmd->add_option_function<std::string>("--products", [&r](const std::string& v) { r.bf16Products = v == "bf16"; },
                                          "The linear layers' products: bf16 (BF16 operands, F32 sums and master weights, as train.py's bf16 "
                                          "autocast that trained the bundled model) or f32")
        ->check(CLI::IsMember({"bf16", "f32"}))
        ->default_str("bf16")
        ->option_text("bf16|f32");
    options::addUnsigned(*cmd, "--seed", r.seed, "a seed from 0 to 2^64-1", "Seed of the initial weights and of the windows");
    options::addInteger(*cmd, "--dim", o.dim, {8, 1 << 16, "a model dimension from 8"}, "Model dimension");
    options::addInteger(*cmd, "--n-layers", o.nLayers, {1, 1024, "1 to 1024 layers"}, "Transformer blocks");
    options::addInteger(*cmd, "--n-heads", o.nHeads, {1, 1024, "1 to 1024 heads"}, "Query heads");
    options::addInteger(*cmd, "--n-kv-heads", o.nKVHeads, {1, 1024, "1 to 1024 heads"}, "Key/value heads (grouped-query attention)");
    options::addInteger(*cmd, "--multiple-of", o.multipleOf, {1, 1 << 16, "a positive multiple"}, "The FFN width is rounded up to a multiple of this");
    options::addReal(*cmd, "--ffn-dim-multiplier", o.ffnDimMultiplier, {0, 64, true, "a multiplier above 0"}, "Meta's ffn_dim_multiplier");
    options::addReal(*cmd, "--rope-theta", o.ropeTheta, {1, 1e12, false, "a base frequency from 1"}, "RoPE's base frequency");
    cmd->add_option("--debug-log", o.debugLog, "Write the first step's passes, forward and backward, in the walkthrough's debug.log format")->option_text("FILE");
    cmd->add_flag("--profile", o.profile, "At the end, print where a step's time went: per stage, forward and backward, and per kind of op");
    cmd->add_option("--trace", o.trace, "Record the first step's first window (or --trace-at's), forward and backward, as a trace (llama-viewer --trace, export-html)")
        ->option_text("FILE");
    cmd->add_option("--trace-at", o.traceAt,
                    "Which step and windows --trace records: STEP:WINDOW, STEP:FIRST-LAST or STEP:all (windows from 1); several windows "
                    "are FILE with .windowN before its extension")
        ->option_text("STEP:WINDOWS");
    cmd->add_flag("--step", o.step, "Hold the first step after each stage, forward and backward (the --step commands; c runs on)");
    // LoRA fine-tuning (lora_train_command.h).
    cmd->add_option("--model", o.model, "With --lora-rank: the model to fine-tune (any format --model of a run reads); its weights stay frozen")
        ->option_text("DIR|FILE");
    options::addInteger(*cmd, "--lora-rank", o.loraRank, {1, 1 << 16, "a rank from 1"},
                        "Fine-tune --model with a new LoRA adapter of this rank instead of training from scratch; writes DIR/adapter.gguf");
    options::addReal(*cmd, "--lora-alpha", o.loraAlpha, {0, 1e6, true, "an alpha above 0"}, "The adapter's alpha: its products are scaled by alpha / rank (default: the rank)");
    cmd->add_option("--lora-targets", o.loraTargets, "The blocks' matrices the adapter adapts, of wq,wk,wv,wo,w1,w2,w3")->default_str("wq,wv");
    cmd->add_option("--init-from", o.recipe.initFrom,
                    "Start from this model's weights (any format the engine loads, as F32) instead of a random initialisation; its shape "
                    "and tokenizer come with it")
        ->option_text("MODEL");
    cmd->callback([cmd, &o] {
        for (const char* flag : kShapeFlags)
            if (cmd->count(flag)) o.given.push_back(flag);
        if (cmd->count("--tokenizer")) o.given.push_back("--tokenizer");
    });
    return cmd;
}

int runTrain(const TrainOptions& given) {
    TrainOptions o = given;
    if (!o.lrSchedule.empty()) o.recipe.lrSchedule = readLrSchedule(o.lrSchedule);
    if (o.text.empty() == o.sft.empty())
        throw std::invalid_argument("train needs one of --text FILE (pretraining on text) and --sft FILE (fine-tuning on chat examples)");
    const fs::path out(o.out);
    if (o.resume && !fs::exists(out / "training.json"))
        throw std::invalid_argument(fmt::format("--resume: '{}' holds no training checkpoint (training.json)", o.out));
    if (!o.resume && fs::exists(out) && !(fs::is_directory(out) && fs::is_empty(out)) && !o.force)
        throw std::invalid_argument(fmt::format("--out '{}' exists and is not an empty directory; --force replaces what it holds, --resume goes on from its checkpoint", o.out));
    if (o.loraRank > 0) return runLoraTrain(o);
    // Fine-tuning starts from a model's weights, with its shape and tokenizer (on --resume too, where
    // the checkpoint's weights then replace them).
    std::optional<Model> source;
    if (!o.recipe.initFrom.empty()) {
        source = loadModel(o.recipe.initFrom);
        requireShapeFlagsAgree(o, *source);
    }
    const auto tokenizer = o.resume ? loadTokenizerFile((out / "tokenizer.model").string()) : source ? source->tokenizer : loadTokenizerFile(o.tokenizer);
    const TrainingData data = readTrainingData(o, *tokenizer);
    Model model = source ? trainableModel(*source, o.recipe.seqLen) : initialModel(modelArgs(o, tokenizer->vocabSize()), o.recipe.seed, tokenizer);
    if (source) {
        source.reset();
        releaseInputFile(o.recipe.initFrom);  // copied: a run may write over it
    }
    const ModelArgs& args = model.args;
    if (o.resume) {
        // The checkpoint's weights, copied out of the mapped file: training writes them.
        const Model saved = loadMetaModel(o.out);
        for (auto& [name, weight] : model.tensors) {
            const Tensor& w = saved.tensor(name, weight.shape());
            if (w.dtype() != DType::F32) throw std::invalid_argument(fmt::format("--resume: '{}' holds {} as {}, a training checkpoint holds F32", o.out, name, dtypeName(w.dtype())));
            std::copy_n(w.data<float>(), w.numel(), weight.mutableData<float>());
        }
    }
    int64_t parameters = 0;
    for (const auto& [name, t] : model.tensors) parameters += t.numel();
    fmt::print("{}\n", data.describe(o));
    fmt::print("Model: dim {} | n_layers {} | n_heads {} | n_kv_heads {} | FFN hidden {} | vocab_size {} | {} parameters ({:.2f}M), F32\n", args.dim,
               args.n_layers, args.n_heads, args.n_kv_heads, args.ffnHiddenDim(), args.vocab_size, parameters, double(parameters) / 1e6);
    if (!o.recipe.initFrom.empty()) fmt::print("Starting from the weights of {}\n", o.recipe.initFrom);
    const TrainingRecipe& r = o.recipe;
    fmt::print("{}\n", data.describeRecipe(r));

    Trainer trainer = data.trainer(model, r);
    // Where fine-tuning starts from, to compare with where it ends.
    if (!r.initFrom.empty() && !o.heldout.empty() && !o.resume) fmt::print("Held-out loss before training: {:.6f}\n", trainer.heldoutLoss());
    double elapsedBefore = 0;
    int64_t tokens = 0;  // trained on so far (fine-tuning's windows are as long as their examples)
    std::vector<LossRecord> records;
    if (o.resume) {
        // The time spent and the tokens trained on (a checkpoint from before it counted them: full windows).
        std::istringstream extra(trainer.restore(o.out));
        extra >> elapsedBefore;
        if (!(extra >> tokens)) tokens = int64_t(trainer.stepsDone()) * r.batch * r.seqLen;
        std::ifstream logFile(out / "log.jsonl");
        for (std::string line; std::getline(logFile, line);)
            if (auto record = parseLossRecord(line); record && record->step <= trainer.stepsDone()) records.push_back(*record);
        fmt::print("Resumed from {} at step {}\n", o.out, trainer.stepsDone());
        // Everything read from the checkpoint is copied now: its next one may replace it.
        releaseInputFile(o.out);
    }
    std::fflush(stdout);
    TrainingWatchers watchers(o, model, trainer);
    StageClock stageClock;
    if (o.profile) {
        trainer.context().addObserver(&stageClock);
        ml::resetOpProfile();
        ml::setOpProfiling(true);
    }
    // Ctrl-C stops the step under way at its next stage and leaves a checkpoint of the last whole step.
    const InterruptFlag interrupt;
    trainer.context().stopWhen(&InterruptFlag::requested);

    fs::create_directories(out);
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return elapsedBefore + std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    auto checkpoint = [&] {
        trainer.save(o.out, fmt::format("{:.3f} {}", elapsed(), tokens));
        std::string log;
        for (const LossRecord& record : records) log += lossRecordJson(record) + "\n";
        writeFileAtomically((out / "log.jsonl").string(), log);
        writeFileAtomically((out / "loss.html").string(), lossCurvePage(records, fmt::format("Training loss: {}", o.out)));
        writeFileAtomically((out / "loss.png").string(), lossCurvePng(records, fmt::format("Training loss: {}", o.out)));
    };
    const bool progress = isatty(STDERR_FILENO) != 0;
    double runningLoss = 0, lastCheckpoint = elapsed();
    int running = 0;
    const int firstStep = trainer.stepsDone();
    const int64_t firstTokens = tokens;
    double steppedSeconds = 0;  // inside trainer.step(): what --profile divides
    auto printProfile = [&] {
        const int steps = trainer.stepsDone() - firstStep;
        if (o.profile) stageClock.print(steps, steps ? (tokens - firstTokens) / steps : 0, steppedSeconds);
    };
    while (trainer.stepsDone() < r.steps) {
        TrainingStepReport step;
        const auto stepStart = std::chrono::steady_clock::now();
        stageClock.restart();
        try {
            step = trainer.step();
        } catch (const GenerationStopped&) {
            if (progress) fmt::print(stderr, "\n");
            checkpoint();
            fmt::print("Interrupted during step {}: the checkpoint in {} holds step {}; go on with the same command and --resume\n", trainer.stepsDone() + 1,
                       o.out, trainer.stepsDone());
            return 130;
        }
        steppedSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - stepStart).count();
        watchers.stepDone(step.step);
        runningLoss += step.loss;
        tokens += step.tokens;
        ++running;
        const bool evaluate = !o.heldout.empty() && (step.step % r.evalEvery == 0 || step.step == r.steps);
        if (evaluate || step.step == r.steps || step.step % o.logEvery == 0) {
            LossRecord record{step.step, runningLoss / running, step.lr, tokens, elapsed(), std::nullopt};
            if (evaluate) record.heldoutLoss = trainer.heldoutLoss();
            records.push_back(record);
            if (progress) fmt::print(stderr, "\r\033[K");
            fmt::print("{}\n", lossRecordJson(record));
            std::fflush(stdout);
            runningLoss = 0, running = 0;
        }
        if (step.step == o.stopAt && step.step < r.steps) {
            if (progress) fmt::print(stderr, "\n");
            checkpoint();
            printProfile();
            fmt::print("Stopped after step {} (--stop-at): the checkpoint is in {}; go on with the same command and --resume\n", step.step, o.out);
            return 0;
        }
        if (elapsed() - lastCheckpoint > o.checkpointMinutes * 60) checkpoint(), lastCheckpoint = elapsed();
        if (progress) {
            const double done = elapsed() - elapsedBefore, stepsHere = step.step - firstStep;
            fmt::print(stderr, "\rstep {}/{} | loss {:.3f} | {:.0f} tok/s | {} left", step.step, r.steps, step.loss,
                       double(tokens - firstTokens) / done, duration(done / stepsHere * (r.steps - step.step)));
        }
    }
    if (progress) fmt::print(stderr, "\n");
    printProfile();
    checkpoint();
    const std::string gguf = (out / "model.gguf").string();
    exportGguf(model, DType::F32, gguf);
    fmt::print("Wrote the model to {} (Meta's layout, F32) and {}, the loss to log.jsonl, loss.html and loss.png, after {} steps in {}\n", o.out, gguf, r.steps,
               duration(elapsed()));
    return 0;
}

}  // namespace llama::cli
