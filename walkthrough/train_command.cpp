#include "train_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "formats/gguf/gguf_export.h"
#include "io/atomic_output.h"
#include "options/checked_option.h"
#include "stages/step_controller.h"
#include "stepper.h"
#include "tokenizer/tokenizer_file.h"
#include "trace/debug_log_observer.h"
#include "train/initial_weights.h"
#include "train/token_stream.h"
#include "train/trainer.h"

namespace llama::cli {

namespace {

namespace fs = std::filesystem;

// Watches the passes of the first training step only: a step is `batch` windows, each a forward
// and a backward pass, thousands of lines; later steps are the same stages with other numbers.
class FirstStepOnly : public StageObserver {
public:
    explicit FirstStepOnly(StageObserver& inner) : inner_(inner) {}
    StageReads reads(StageId stage, int layer) const override { return inner_.reads(stage, layer); }
    void onStage(const StageEvent& event) override {
        if (event.step <= 1) inner_.onStage(event);
    }

private:
    StageObserver& inner_;
};

std::string duration(double seconds) {
    const auto s = int64_t(seconds);
    return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{}:{:02}", s / 60, s % 60);
}

ModelArgs modelArgs(const TrainOptions& o, int vocabSize) {
    ModelArgs args = bundledModelArgs(vocabSize);
    args.dim = o.dim;
    args.n_layers = o.nLayers;
    args.n_heads = o.nHeads;
    args.n_kv_heads = o.nKVHeads;
    args.multiple_of = o.multipleOf;
    args.ffn_dim_multiplier = o.ffnDimMultiplier;
    args.rope_theta = o.ropeTheta;
    args.max_seq_len = o.recipe.seqLen;
    args.validate("the train options");
    return args;
}

}  // namespace

CLI::App* addTrainCommand(CLI::App& app, TrainOptions& o) {
    CLI::App* cmd = app.add_subcommand("train", "Train a Llama from scratch on a text file with the engine's own backward pass (assets/train.py's recipe)");
    cmd->add_option("--text", o.text, "UTF-8 training text; a line holding only a form feed separates documents (assets/make_corpus.py's chapters)")
        ->option_text("FILE REQUIRED")
        ->required();
    cmd->add_option("--heldout", o.heldout, "UTF-8 text for the held-out loss, never trained on")->option_text("FILE");
    cmd->add_option("--tokenizer", o.tokenizer, "A Llama 3 tiktoken tokenizer.model (with Llama 3's special tokens)")->option_text("FILE");
    cmd->add_option("--out", o.out, "Directory for the trained model (model.gguf, F32) and the loss log (log.jsonl)")->option_text("DIR REQUIRED")->required();
    cmd->add_flag("--force", o.force, "Replace what --out holds");
    TrainingRecipe& r = o.recipe;
    options::addInteger(*cmd, "--seq-len", r.seqLen, {2, 1 << 16, "a window of 2 to 65536 tokens"}, "Tokens per training window");
    options::addInteger(*cmd, "--batch", r.batch, {1, 1 << 16, "1 to 65536 windows"}, "Windows per step");
    options::addInteger(*cmd, "--steps", r.steps, {1, 1 << 24, "1 to 16777216 steps"}, "Optimizer steps");
    options::addInteger(*cmd, "--warmup", r.warmup, {1, 1 << 24, "1 to 16777216 steps"}, "Steps of linear learning-rate warmup");
    options::addReal(*cmd, "--lr", r.lr, {0, 1, true, "a learning rate above 0, at most 1"}, "Peak learning rate");
    options::addReal(*cmd, "--min-lr-frac", r.minLrFrac, {0, 1, false, "a fraction from 0 to 1"}, "The cosine decays to this fraction of --lr");
    options::addReal(*cmd, "--wd", r.weightDecay, {0, 1, false, "a weight decay from 0 to 1"}, "AdamW's weight decay (matrices only)");
    options::addReal(*cmd, "--clip", r.clip, {0, 1e6, true, "a norm above 0"}, "Clip the gradients' global norm to this");
    options::addInteger(*cmd, "--eval-every", r.evalEvery, {1, 1 << 24, "1 to 16777216 steps"}, "Steps between held-out losses (with --heldout)");
    options::addUnsigned(*cmd, "--seed", r.seed, "a seed from 0 to 2^64-1", "Seed of the initial weights and of the windows");
    options::addInteger(*cmd, "--dim", o.dim, {8, 1 << 16, "a model dimension from 8"}, "Model dimension");
    options::addInteger(*cmd, "--n-layers", o.nLayers, {1, 1024, "1 to 1024 layers"}, "Transformer blocks");
    options::addInteger(*cmd, "--n-heads", o.nHeads, {1, 1024, "1 to 1024 heads"}, "Query heads");
    options::addInteger(*cmd, "--n-kv-heads", o.nKVHeads, {1, 1024, "1 to 1024 heads"}, "Key/value heads (grouped-query attention)");
    options::addInteger(*cmd, "--multiple-of", o.multipleOf, {1, 1 << 16, "a positive multiple"}, "The FFN width is rounded up to a multiple of this");
    options::addReal(*cmd, "--ffn-dim-multiplier", o.ffnDimMultiplier, {0, 64, true, "a multiplier above 0"}, "Meta's ffn_dim_multiplier");
    options::addReal(*cmd, "--rope-theta", o.ropeTheta, {1, 1e12, false, "a base frequency from 1"}, "RoPE's base frequency");
    cmd->add_option("--debug-log", o.debugLog, "Write the first step's passes, forward and backward, in the walkthrough's debug.log format")->option_text("FILE");
    cmd->add_flag("--step", o.step, "Hold the first step after each stage, forward and backward (the --step commands; c runs on)");
    return cmd;
}

int runTrain(const TrainOptions& o) {
    if (fs::exists(o.out) && !(fs::is_directory(o.out) && fs::is_empty(o.out)) && !o.force)
        throw std::invalid_argument(fmt::format("--out '{}' exists and is not an empty directory; --force replaces what it holds", o.out));
    const auto tokenizer = loadTokenizerFile(o.tokenizer);
    const TokenStream train = readTokenStream(o.text, "training text", *tokenizer);
    const TokenStream heldout = o.heldout.empty() ? TokenStream{} : readTokenStream(o.heldout, "held-out text", *tokenizer);
    const ModelArgs args = modelArgs(o, tokenizer->vocabSize());
    Model model = initialModel(args, o.recipe.seed, tokenizer);
    int64_t parameters = 0;
    for (const auto& [name, t] : model.tensors) parameters += t.numel();
    fmt::print("Training text: {} ({} documents, {} bytes, {} tokens){}\n", o.text, train.documents, train.bytes, train.tokens.size(),
               o.heldout.empty() ? "" : fmt::format("; held out: {} ({} tokens)", o.heldout, heldout.tokens.size()));
    fmt::print("Model: dim {} | n_layers {} | n_heads {} | n_kv_heads {} | FFN hidden {} | vocab_size {} | {} parameters ({:.2f}M), F32\n", args.dim,
               args.n_layers, args.n_heads, args.n_kv_heads, args.ffnHiddenDim(), args.vocab_size, parameters, double(parameters) / 1e6);
    const TrainingRecipe& r = o.recipe;
    fmt::print("Recipe: {} steps of {} windows of {} tokens, AdamW lr {} (warmup {}, cosine to {}x), weight decay {}, clip {}, seed {}\n", r.steps,
               r.batch, r.seqLen, r.lr, r.warmup, r.minLrFrac, r.weightDecay, r.clip, r.seed);
    std::fflush(stdout);

    Trainer trainer(model, r, train.tokens, heldout.tokens);
    std::unique_ptr<DebugLogObserver> debugLog;
    std::unique_ptr<FirstStepOnly> firstStepLog;
    if (!o.debugLog.empty()) {
        debugLog = std::make_unique<DebugLogObserver>(o.debugLog);
        firstStepLog = std::make_unique<FirstStepOnly>(*debugLog);
        trainer.context().addObserver(firstStepLog.get());
    }
    StepController controller;
    std::unique_ptr<TerminalStepper> stepper;
    std::unique_ptr<FirstStepOnly> firstStepStepper;
    if (o.step) {
        stepper = std::make_unique<TerminalStepper>(controller, std::cin, std::cout, args.n_layers, !isatty(STDIN_FILENO));
        firstStepStepper = std::make_unique<FirstStepOnly>(controller);
        trainer.context().addObserver(firstStepStepper.get());
    }

    fs::create_directories(o.out);
    AtomicOutputFile log((fs::path(o.out) / "log.jsonl").string());
    const bool progress = isatty(STDERR_FILENO) != 0;
    const auto start = std::chrono::steady_clock::now();
    double runningLoss = 0;
    int running = 0;
    for (int s = 0; s < r.steps; ++s) {
        const TrainingStepReport step = trainer.step();
        if (debugLog && step.step == 1) debugLog->finish();
        runningLoss += step.loss;
        ++running;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double tokensPerSecond = double(step.step) * r.batch * r.seqLen / elapsed;
        const bool evaluate = !heldout.tokens.empty() && (step.step % r.evalEvery == 0 || step.step == r.steps);
        if (evaluate || step.step == r.steps || step.step % 25 == 0) {
            std::string record = fmt::format(R"({{"step": {}, "train_loss": {:.6f}, "lr": {:.6g}, "tokens": {}, "elapsed": {:.2f})", step.step,
                                             runningLoss / running, step.lr, int64_t(step.step) * r.batch * r.seqLen, elapsed);
            if (evaluate) record += fmt::format(R"(, "heldout_loss": {:.6f})", trainer.heldoutLoss());
            log.stream() << record << "}\n";
            if (progress) fmt::print(stderr, "\r\033[K");
            fmt::print("{}}}\n", record);
            std::fflush(stdout);
            runningLoss = 0, running = 0;
        }
        if (progress)
            fmt::print(stderr, "\rstep {}/{} | loss {:.3f} | {:.0f} tok/s | {} left", step.step, r.steps, step.loss, tokensPerSecond,
                       duration(elapsed / step.step * (r.steps - step.step)));
    }
    if (progress) fmt::print(stderr, "\n");
    log.commit();
    const std::string gguf = (fs::path(o.out) / "model.gguf").string();
    exportGguf(model, DType::F32, gguf);
    fmt::print("Wrote {} and {} after {} steps in {}\n", gguf, (fs::path(o.out) / "log.jsonl").string(), r.steps,
               duration(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
    return 0;
}

}  // namespace llama::cli
