// llama-walkthrough: runs a Llama model step by step, logging every stage in the
// walkthrough's words. `llama-walkthrough bench` measures its speed.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <memory>

#include "bench.h"
#include "compare_doc.h"
#include "convert.h"
#include "diff.h"
#include "formats/model_loader.h"
#include "inspect_model.h"
#include "inspection.h"
#include "interrupt.h"
#include "ml/thread_pool.h"
#include "model_summary.h"
#include "penalty_options.h"
#include "session.h"
#include "tokenize.h"
#include "trace/debug_log_observer.h"
#include "what_if.h"

using namespace llama;

namespace {

void addModelOptions(CLI::App& app, cli::Options& o) {
    auto* model = app.add_option("--model", o.model,
                                 "Model directory in Meta's layout (consolidated.00.pth, params.json, tokenizer.model) or "
                                 "Hugging Face's (config.json, *.safetensors, tokenizer.json) or a .gguf file or a llama2.c checkpoint (model.bin, "
                                 "with tokenizer.bin); default: the bundled model");
    auto* synthetic = app.add_option("--synthetic", o.synthetic, "Seeded random-weight model: tiny, tinyllama-1.1b, llama3.1-8b, llama2-7b")
        ->excludes(model);
    app.add_option("--tokenizer", o.tokenizer,
                   "A llama2.c checkpoint's tokenizer.bin (default: the one beside it), or a --synthetic preset's tokenizer: a tiktoken "
                   "or SentencePiece tokenizer.model, or a tokenizer.json, of the preset's vocabulary size (default: byte by byte)");
    app.add_option("--threads", o.threads, "Compute threads (default: every core)")->check(CLI::Range(1, ml::ThreadPool::maxThreads()));
    app.add_option("--seed", o.generation.sampling.seed, "Random seed for sampling and synthetic weights");
    app.add_option("--max-seq-len", o.maxSeqLen, "Context length (default: the model's, else 2048)")
        ->check(CLI::Range(1, ModelArgs::kMaxPositions));
}

int runGeneration(const cli::Options& o) {
    Session session;
    cli::InterruptHandling interrupts(session);
    session.load(cli::selectedSource(o), cli::loadOptions(o, o.dryRun));
    if (interrupts.stopReason() == "interrupt") {
        fmt::print(stderr, "interrupted while loading the model: nothing was run\n");
        return 130;  // as a shell reports a Ctrl-C
    }
    const Model& model = *session.model();
    if (!o.quiet) cli::printModelSummary(model);
    session.settings() = o.generation;
    std::unique_ptr<DebugLogObserver> debugLog;
    if (!o.debugLog.empty()) {
        debugLog = std::make_unique<DebugLogObserver>(o.debugLog);
        session.addObserver(debugLog.get());
    }
    const GenerationSettings& g = o.generation;
    g.whatIf.validate(model.args.n_layers, model.args.n_heads);
    if (g.whatIf.any()) {
        const std::string note = "What-if experiment, not the model's own computation: " + g.whatIf.describe();
        if (debugLog) debugLog->line(note);
        fmt::print("{}\n", note);  // even with -q: an experiment's output must not pass for the model's
    }
    cli::StepLogits stepLogits;
    if (g.whatIf.noKvCache) session.addObserver(&stepLogits);
    cli::Inspection inspection(o, session);
    if (!o.quiet) interrupts.writeOut("\n" + (g.mode == PromptMode::Completion ? g.prompt : std::string()));
    GenerationResult r = session.run([&](const std::string& piece) { interrupts.writeOut(piece); });
    // A stop we asked for (Ctrl-C, a closed stdout) says which; the stepper's q stays "stopped".
    if (std::string why = interrupts.stopReason(); r.stopReason == "stopped" && !why.empty()) r.stopReason = why;
    interrupts.writeOut("\n\n");
    inspection.finish(r);
    if (debugLog) debugLog->finish();
    if (interrupts.stdoutClosed()) {
        // Nobody reads the summary any more; the files are complete, and stderr says so.
        fmt::print(stderr, "stdout was closed: stopped with {} tokens generated{}\n", r.generatedTokens.size(),
                   debugLog ? "; the debug log is complete" : "");
        return 0;
    }
    if (o.dryRun) fmt::print("Dry run: shapes only; the generated tokens are fixed stand-ins.\n");
    double prefillTps = r.prefillSeconds > 0 ? r.promptTokens.size() / r.prefillSeconds : 0;
    double decodeTps = r.decodeSeconds > 0 ? r.decodeSteps / r.decodeSeconds : 0;
    fmt::print("Prompt tokens: {} | generated tokens: {} | prefill: {:.1f} tok/s | decode: {:.1f} tok/s | stopped by: {}\n",
               r.promptTokens.size(), r.generatedTokens.size(), prefillTps, decodeTps, r.stopReason);
    if (r.stopReason == "context length")
        fmt::print("The context length ({} positions) is full: start again with a shorter prompt or a larger --max-seq-len.\n",
                   model.args.max_seq_len);
    if (debugLog) fmt::print("Debug log written to {}\n", o.debugLog);
    if (g.whatIf.noKvCache && !o.dryRun && r.stopReason != "stopped") cli::reportKvCacheExperiment(session, r, stepLogits);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"llama-walkthrough: Llama inference you can read, step by step"};
    app.set_version_flag("--version", "llama-walkthrough 0.1");
    cli::Options o;
    o.model = LLAMA_SOURCE_DIR "/assets/model";
    addModelOptions(app, o);
    GenerationSettings& g = o.generation;
    app.add_option("-p,--prompt", g.prompt, "Prompt text")->default_str(kDefaultPrompt);
    app.add_option("--system", g.system, "System prompt (chat mode)");
    auto* chat = app.add_flag_callback("--chat", [&] { g.mode = PromptMode::Chat; }, "Use the model's instruct chat template (Llama 3's, or Llama 2's [INST])");
    app.add_flag_callback("--completion", [&] { g.mode = PromptMode::Completion; }, "Raw text continuation (default)")->excludes(chat);
    app.add_flag("--allow-special", g.allowSpecial,
                 "In --chat mode, special-token text in --prompt and --system becomes control tokens (completion prompts always do)")
        ->needs(chat);
    app.add_option("-n,--max-tokens", g.maxTokens, "Tokens to generate")->check(CLI::Range(0, ModelArgs::kMaxPositions));
    app.add_option("--temperature", g.sampling.temperature, "0 = greedy (default)")->check(CLI::Range(0.0, 100.0));
    app.add_option("--top-k", g.sampling.topK, "Keep the k most likely tokens (0 = all)")->check(CLI::Range(0, ModelArgs::kMaxVocab));
    app.add_option("--top-p", g.sampling.topP, "Nucleus sampling threshold in (0, 1]")->check(CLI::Range(0.0, 1.0));
    cli::addPenaltyOptions(app, g.sampling);
    app.add_option("--debug-log", o.debugLog, "Write every stage in the walkthrough's log format to FILE");
    app.add_flag("-q,--quiet", o.quiet, "Print only the generated text and the summary");
    cli::addInspectionOptions(app, o);
    cli::addWhatIfOptions(app, g.whatIf);

    CLI::App* bench = app.add_subcommand("bench", "Measure prefill and decode speed and the weight-streaming rate");
    addModelOptions(*bench, o);
    bench->add_option("--prompt-tokens", o.benchPromptTokens, "Prompt lengths for the prefill: 32, or 32,128 (decode follows the first)")
        ->delimiter(',')
        ->check(CLI::Range(1, ModelArgs::kMaxPositions));
    bench->add_option("--decode-tokens", o.benchDecodeTokens, "Tokens to decode")->check(CLI::Range(1, ModelArgs::kMaxPositions));
    bench->add_option("--repeat", o.benchRepeats, "Repetitions (the median is reported)")->check(CLI::Range(1, 1000));
    bench->add_option("--observer", o.benchObserver, "What watches the stages: none, record (a trace without tensor data), log")
        ->check(CLI::IsMember({"none", "record", "log"}));
    bench->add_flag("--profile", o.benchProfile, "Time per kind of ml:: op (LinearTransformation, MatMul, ...), per token");
    bench->add_option("--llama-bench", o.benchLlamaBench,
                      "llama.cpp's llama-bench binary: run it on the same --model FILE.gguf with the same settings and compare");

    cli::CompareDocOptions compareDocOptions;
    CLI::App* compareDoc = cli::addCompareDocCommand(app, compareDocOptions);
    cli::ConvertOptions convertOptions;
    CLI::App* convert = cli::addConvertCommand(app, convertOptions);
    cli::InspectOptions inspectOptions;
    CLI::App* inspect = cli::addInspectCommand(app, o.model, inspectOptions);
    cli::DiffOptions diffOptions;
    CLI::App* diff = cli::addDiffCommand(app, diffOptions);
    cli::TokenizeOptions tokenizeOptions{.model = o.model};
    CLI::App* tokenize = cli::addTokenizeCommand(app, tokenizeOptions);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    try {
        if (o.threads > 0) ml::ThreadPool::configureGlobal(o.threads);
        if (*bench) return cli::runBench(o);
        if (*compareDoc) return cli::runCompareDoc(compareDocOptions);
        if (*convert) return cli::runConvert(convertOptions);
        if (*diff) return cli::runDiff(diffOptions);
        if (*tokenize) return cli::runTokenize(tokenizeOptions);
        if (*inspect) {
            const Model model = loadModel(o.model);
            if (inspectOptions.block.first.empty()) cli::printModelInspection(model);
            else cli::printBlockInspection(model, inspectOptions);
            return 0;
        }
        return runGeneration(o);
    } catch (const std::exception& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return 1;
    }
}
