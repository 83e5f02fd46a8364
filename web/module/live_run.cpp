// The browser build's entry points, called from web/page/engine_worker.js through embind. A run
// is given as the CLI's own options (the same parser, ranges and messages as llama-walkthrough),
// recorded into a trace in the module's memory file system exactly as --trace records one, and
// shown by the run page's data builder that export-html uses (viewer/page): the page's script
// draws, it computes nothing of the model. Every error reaches the page as a message. In the
// threaded build a stepped run is held at its stages as --step holds it (the step controller):
// the engine's thread waits there, and the panels get the stages recorded since the last step
// (run_page_feed.h: the trace read as it is written, a part of page data a step). The Train panel
// trains a tiny model on the reader's text (live_training.h) through the one `train` entry point.
// A `batch`, `patch` or `tokenize` command is run by live_views.h (batch and patch shown from their traces).
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <emscripten/emscripten.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "doccheck/shell_words.h"
#include "generate/logit_lens.h"
#include "live_training.h"
#include "run_page_feed.h"
#include "live_views.h"
#include "ml/kernels/kernel_set.h"
#include "ml/thread_pool.h"
#include "options/live_run_options.h"
#include "page/run_page.h"
#include "session/session.h"
#include "stages/step_controller.h"
#include "trace/trace_reader.h"
#include "trace/trace_recorder.h"

namespace {

using nlohmann::json;
using namespace llama;


// A message to the page, posted by the module's main thread (the worker the page talks to) even
// when the engine's thread sends it: kind 'text' (generated text as it comes) or 'done' (a run's
// result, JSON). The copy is freed once posted.
void post(const char* kind, const std::string& text) {
    char* copy = strdup(text.c_str());
    MAIN_THREAD_ASYNC_EM_ASM(
        {
            const text = UTF8ToString($1);
            _free($1);
            self.postMessage({kind: UTF8ToString($0), text: text});
        },
        kind, copy);
}

struct LiveRun {
    Session session;
#ifndef LLAMA_NO_THREADS
    std::thread engine;  // runs the model, so the module's main thread stays free to start threads
#endif
    std::string loadedModel;  // what `session` holds (ModelSource::loadKey and --max-seq-len), so a second run of it does not read the weights again
    // A stepped run's controller; the trace being written while the engine is held (its thread
    // waiting in the controller: set by that thread as it is held, cleared by the module's main
    // thread before anything lets it go on), and the text generated so far.
    std::unique_ptr<StepController> stepper;
    std::mutex heldMutex;  // guards what follows
    std::string heldTrace, textSoFar;
    // The time the reader held the run inside the generator's timed part (Transformer.Forward and
    // the sampler's choice: stages input_embeddings to logits), by phase: the summary's tok/s
    // count the engine's time, not the reader's. heldSince: when the engine was held there.
    std::optional<std::chrono::steady_clock::time_point> heldSince;
    bool heldInPrefill = false;
    double heldPrefillSeconds = 0, heldDecodeSeconds = 0;
    GenerationSettings lastSettings;
    // The last finished run's trace. Each run writes a new file: the engine refuses to write over a
    // file the process has read, and the last trace was read for the panels.
    std::string trace;
    int runs = 0;
    std::unique_ptr<web::LiveTraining> training;  // the page's Train panel (live_training.h)
    int heldStage = 0;    // the stage number the run is held at (guarded by heldMutex)
    web::RunPageFeed feed;  // the panels' data, a part a step (run_page_feed.h); the module's main thread only
};
LiveRun& live() {
    static LiveRun r;
    return r;
}

json errorJson(const std::string& message) { return {{"ok", false}, {"error", message}}; }

// Loads the source into the session unless it holds it already, with this context length.
void ensureLoaded(LiveRun& l, const ModelSource& source, int maxSeqLen) {
    const std::string key = source.loadKey() + " " + std::to_string(maxSeqLen);
    if (key == l.loadedModel) return;
    l.loadedModel.clear();
    l.session.unload();  // not held beside the next: one model in memory at a time
    l.session.load(source, LoadOptions{.maxSeqLen = maxSeqLen});
    l.loadedModel = key;
}

// A `batch`, `patch` or `tokenize` command (live_views.h), run whole (not held at its stages);
// a recorded one's trace is the page's run.
std::string viewNow(LiveRun& l, const options::LiveCommand& command) {
    const std::string tracePath = "/tmp/run-" + std::to_string(++l.runs) + ".trace";
    const auto load = [&l](const ModelSource& source, int maxSeqLen) { ensureLoaded(l, source, maxSeqLen); };
    const json out = web::runViewCommand(command, l.session, load, tracePath, [](const std::string& line) { post("progress", line); });
    if (out.value("recorded", false)) {
        if (!l.trace.empty()) std::remove(l.trace.c_str());  // the last run's: its page data was made
        l.trace = tracePath;
    }
    return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Loads (if it is not loaded already) and runs; with `record`, the run is recorded as a trace (the
// page's run), without, nothing watches the run (web/bench.mjs times the engine alone).
std::string runNow(const std::string& argsJson, bool record, bool stepped) {
    LiveRun& l = live();
    try {
        const options::LiveCommand command = options::parseLiveCommand(json::parse(argsJson).get<std::vector<std::string>>());
        if (!std::holds_alternative<options::LiveRunRequest>(command)) return viewNow(l, command);
        const options::LiveRunRequest& r = std::get<options::LiveRunRequest>(command);
        ensureLoaded(l, r.model.source(r.seed), r.maxSeqLen);
        l.session.settings() = r.settings;
        l.session.clearObservers();
        LogitLens lens(l.session.transformer());
        TraceOptions t;
        t.preSoftmax = true;  // the page shows each attention cell's arithmetic
        const GenerationSettings& g = r.settings;
        const std::string tracePath = "/tmp/run-" + std::to_string(++l.runs) + ".trace";
        std::optional<TraceRecorder> recorder;
        if (record) {
            recorder.emplace(tracePath, *l.session.model(), TraceRunInfo{g.prompt, g.maxTokens, g.sampling, false, g.whatIf}, t, &lens);
            l.session.addObserver(&*recorder);
        }
        // Held at a stage: the recorder has recorded it (it watches first); its records are written
        // out for the panels, then the page hears where the engine waits.
        if (stepped && recorder) {
            l.stepper->setPauseListener([&](const StageEvent& e) {
                const std::string& path = recorder->flush();
                std::lock_guard lock(l.heldMutex);
                l.heldTrace = path;
                const int number = stageInfo(e.stage).number;
                l.heldStage = number;
                if (number >= stageInfo(StageId::InputEmbeddings).number && number <= stageInfo(StageId::Logits).number) {
                    l.heldSince = std::chrono::steady_clock::now();
                    l.heldInPrefill = e.step == 0;
                }
                post("held", json{{"stage", stageInfo(e.stage).number}, {"layer", e.layer}, {"step", e.step}}.dump());
            });
            l.session.addObserver(l.stepper.get());
        }
        {
            std::lock_guard lock(l.heldMutex);
            l.textSoFar.clear();
            l.heldSince.reset();
            l.heldPrefillSeconds = l.heldDecodeSeconds = 0;
        }
        const GenerationResult result = l.session.run([&](const std::string& piece) {
            {
                std::lock_guard lock(l.heldMutex);
                l.textSoFar += piece;
            }
            post("text", piece);
        });
        if (recorder) recorder->finish(result);
        l.session.clearObservers();
        if (record) {
            if (!l.trace.empty()) std::remove(l.trace.c_str());  // the last run's: its page data was made
            l.trace = tracePath;
        }
        const int generated = int(result.generatedTokens.size());
        std::lock_guard lock(l.heldMutex);
        return json{{"ok", true},
                    {"text", result.text},
                    {"stopReason", describe(result.stopReason)},
                    {"promptTokens", result.promptTokens.size()},
                    {"generatedTokens", generated},
                    {"prefillSeconds", result.prefillSeconds - l.heldPrefillSeconds},
                    {"decodeSeconds", result.decodeSeconds - l.heldDecodeSeconds},
                    {"heldSeconds", l.heldPrefillSeconds + l.heldDecodeSeconds},
                    {"decodeSteps", result.decodeSteps},
                    {"kernels", ml::kernels::active().name},
                    {"threads", ml::ThreadPool::global().threadCount()}}
            .dump();
    } catch (const std::exception& e) {
        l.session.clearObservers();
        return errorJson(e.what()).dump();
    }
}

// ---- the Train panel: a tiny model trained on the reader's text (web/module/live_training.h),
// a few steps a call, so that the page draws the loss between calls and stops by asking no more.

json stepsJson(const web::LiveTrainingSteps& s) {
    return {{"ok", true}, {"step", s.step}, {"losses", s.losses}, {"lr", s.lr}, {"seconds", s.seconds}, {"tokensPerSecond", s.tokensPerSecond}};
}

// One request of the page: {"cmd": "start", "text": FILE, "settings": {...}} (a new model on the
// text in FILE, the bundled tokenizer), {"cmd": "steps", "count": N}, {"cmd": "sample",
// "prompt", "maxTokens", "temperature", "seed" (text: JavaScript's numbers do not hold every
// 64-bit seed)}, or {"cmd": "record"}: one step with its first window recorded as the page's run,
// whose panels pageData() then gives, forward and backward stages.
json trainNow(const json& r) {
    LiveRun& l = live();
    const std::string cmd = r.at("cmd");
    if (cmd == "start") {
        l.training.reset();
        const web::LiveTrainingSettings settings = web::LiveTrainingSettings::fromJson(r.value("settings", json::object()));
        l.training = std::make_unique<web::LiveTraining>(r.at("text").get<std::string>(), "/assets/model/tokenizer.model", settings);
        const ModelArgs& a = l.training->model().args;
        return {{"ok", true},          {"tokens", l.training->tokens()}, {"parameters", l.training->parameters()},
                {"dim", a.dim},        {"nLayers", a.n_layers},          {"nHeads", a.n_heads},
                {"nKVHeads", a.n_kv_heads}, {"ffn", a.ffnHiddenDim()},   {"vocab", a.vocab_size},
                {"seqLen", settings.recipe.seqLen}, {"batch", settings.recipe.batch}, {"steps", settings.recipe.steps},
                {"command", settings.trainCommand()}};
    }
    if (!l.training) throw std::invalid_argument("no model yet: start the training first");
    if (cmd == "steps") return stepsJson(l.training->steps(r.at("count").get<int>()));
    if (cmd == "sample")
        return {{"ok", true},
                {"prompt", r.at("prompt")},
                {"text", l.training->sample(r.at("prompt").get<std::string>(), r.at("maxTokens").get<int>(), r.at("temperature").get<float>(),
                                            std::stoull(r.at("seed").get<std::string>()))}};
    if (cmd == "record") {
        const std::string tracePath = "/tmp/run-" + std::to_string(++l.runs) + ".trace";
        const web::LiveTrainingSteps s = l.training->recordedStep(tracePath);
        json out = stepsJson(s);
        out["window"] = s.window;
        if (!l.trace.empty()) std::remove(l.trace.c_str());  // the last run's: its page data was made
        l.trace = tracePath;
        return out;
    }
    throw std::invalid_argument("unknown training request '" + cmd + "'");
}

// Answers with a 'train' message (the request's "cmd" and its result). In the threaded build the
// work runs on the engine's thread, as a run does: the trace recorder's writer reaches the file
// system through the module's main thread, which must not be waiting then.
void train(const std::string& requestJson) {
    auto answer = [requestJson] {
        json out;
        std::string cmd;
        try {
            const json r = json::parse(requestJson);
            cmd = r.value("cmd", "");
            out = trainNow(r);
        } catch (const std::exception& e) {
            out = errorJson(e.what());
        }
        out["cmd"] = cmd;
        post("train", out.dump(-1, ' ', false, json::error_handler_t::replace));
    };
#ifdef LLAMA_NO_THREADS
    answer();
#else
    LiveRun& l = live();
    if (l.engine.joinable()) l.engine.join();
    l.engine = std::thread(answer);
#endif
}

// A held run let go (the caller holds heldMutex): the time it was held is added to its phase's.
void released(LiveRun& l) {
    l.heldTrace.clear();
    if (!l.heldSince) return;
    const double held = std::chrono::duration<double>(std::chrono::steady_clock::now() - *l.heldSince).count();
    (l.heldInPrefill ? l.heldPrefillSeconds : l.heldDecodeSeconds) += held;
    l.heldSince.reset();
}

// Ends the run in progress at its next stage boundary ("stopped by: stopped"), held or not.
void stop() {
    LiveRun& l = live();
    {
        std::lock_guard lock(l.heldMutex);
        released(l);
    }
    l.session.requestStop();
    web::stopPatchCommand();
    if (l.stepper) l.stepper->stop();
}

// Starts a run; its result comes as a 'done' message. Without threads the run is done by then,
// and the worker cannot take messages while it lasts (the page ends it by ending the worker).
// `stepped` (threads only): the engine is held at the first stage, a 'held' message says so, and
// stepRun moves it on.
void start(const std::string& argsJson, bool record, bool stepped) {
#ifdef LLAMA_NO_THREADS
    post("done", runNow(argsJson, record, false));
#else
    LiveRun& l = live();
    stop();  // a run still held ends first
    if (l.engine.joinable()) l.engine.join();
    l.stepper = stepped ? std::make_unique<StepController>(StepController::Mode::Stage) : nullptr;
    l.engine = std::thread([argsJson, record, stepped] { post("done", runNow(argsJson, record, stepped)); });
#endif
}

// Moves a held run on: "stage", "layer" (--step's keys), "token" or "end" (runs to the end).
// The page's "token" holds at the next sampling stage, past --step's (the logits stage): there the
// step's candidates, the one sampled and the lens are all recorded, so its panels show them.
void stepRun(const std::string& kind) {
    LiveRun& l = live();
    {
        std::lock_guard lock(l.heldMutex);
        if (!l.stepper || l.heldTrace.empty()) return;
        released(l);
    }
    l.stepper->clearBreakpoints();
    if (kind == "stage") l.stepper->step();
    else if (kind == "layer") l.stepper->nextLayer();
    else if (kind == "token") {
        l.stepper->addBreakpoint(Breakpoint{.stage = StageId::Sample});
        l.stepper->continueRun();
    } else l.stepper->continueRun();
}

// What the held run's trace lacks (its END): the prompt's tokens and the text so far, from the run
// itself. The caller holds heldMutex.
page::RunSoFar heldSoFar(LiveRun& l) {
    const Tokenizer& tokenizer = *l.session.model()->tokenizer;
    page::RunSoFar soFar;
    for (int32_t id : l.session.promptTokens()) soFar.promptTokens.push_back(TraceToken{id, tokenizer.pieceForDisplay(id), tokenizer.isSpecial(id)});
    soFar.text = l.textSoFar;
    soFar.stopReason = "held at stage " + std::to_string(l.heldStage);
    return soFar;
}

// The next part of the panels' data (run_page_feed.h): "held" (the held run's stages written since
// the last part), "all" (the finished run, to its end), or a reveal of the finished run ("first",
// "stage", "layer", "token", "end"). Its float arrays: pageBytes().
std::string pagePart(const std::string& how) {
    LiveRun& l = live();
    try {
        std::lock_guard lock(l.heldMutex);
        json r;
        if (how == "held") {
            if (l.heldTrace.empty()) return errorJson("the run is not held at a stage").dump();
            const page::RunSoFar soFar = heldSoFar(l);
            r = l.feed.next(l.heldTrace, how, &soFar);
            r["held"] = true;
        } else {
            if (l.trace.empty()) return errorJson("no finished run yet").dump();
            r = l.feed.next(l.trace, how);
        }
        r["ok"] = true;
        return r.dump(-1, ' ', false, json::error_handler_t::replace);
    } catch (const std::exception& e) {
        l.feed.clear();
        return errorJson(e.what()).dump();
    }
}

// The arithmetic of the panels' attention at (step, layer), made when the reader opens one of its
// cells rather than for every attention in every part (run_page_feed.h). Its float arrays: pageBytes().
std::string attentionArithmetic(int step, int layer) {
    try {
        json r = live().feed.arithmetic(step, layer);
        r["ok"] = true;
        return r.dump(-1, ' ', false, json::error_handler_t::replace);
    } catch (const std::exception& e) {
        return errorJson(e.what()).dump();
    }
}

// The last part's or arithmetic's float arrays, as a view of the module's memory (the worker copies it out).
emscripten::val pageBytes() {
    const std::string& bytes = live().feed.bytes();
    return emscripten::val(emscripten::typed_memory_view(bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data())));
}

// The loaded model let go (a run still going ends first), so that its memory is free for the
// reader's next files (engine_worker.js); the next run loads again.
void unloadModel() {
    LiveRun& l = live();
#ifndef LLAMA_NO_THREADS
    stop();
    if (l.engine.joinable()) l.engine.join();
#endif
    l.loadedModel.clear();
    l.session.unload();
}

// The held run's or the last finished run's page data made whole, at once, from its trace as
// export-html makes it (with every attention's arithmetic): what the parts so far add up to, for
// the live page's test to compare.
std::string pageData() {
    try {
        LiveRun& l = live();
        std::lock_guard lock(l.heldMutex);
        const bool held = !l.heldTrace.empty();
        const std::string& path = held ? l.heldTrace : l.trace;
        if (path.empty()) return errorJson("no finished run yet").dump();
        page::RunPageOptions o{.tracePath = path, .comparePath = {}, .chapterBase = {}};
        o.budgetBytes = 0;
        // A patch command's trace: its clean run, and the heatmap beside it.
        if (!held && isPatchTrace(path)) o.patch = std::make_shared<const PatchTrace>(readPatchTrace(path));
        const page::RunSoFar soFar = held ? heldSoFar(l) : page::RunSoFar{};
        auto run = o.patch ? std::make_shared<const TraceRun>(o.patch->clean)
                           : std::make_shared<const TraceRun>(held ? readTraceSoFar(path) : readTrace(path));
        return json{{"ok", true}, {"held", held}, {"data", page::runPageData(run, o, held ? &soFar : nullptr)}}.dump(-1, ' ', false, json::error_handler_t::replace);
    } catch (const std::exception& e) {
        return errorJson(e.what()).dump();
    }
}

// The last run as a self-contained page (export-html's), written beside its trace: both paths.
std::string exportPage() {
    try {
        const std::string& trace = live().trace;
        if (trace.empty()) return errorJson("no finished run yet").dump();
        const std::string page = trace.substr(0, trace.size() - 6) + ".html";
        std::remove(page.c_str());  // a page saved before from this run
        page::writeRunPage(page::RunPageOptions{.tracePath = trace, .comparePath = {}, .chapterBase = {}}, page);
        return json{{"ok", true}, {"page", page}, {"trace", trace}}.dump();
    } catch (const std::exception& e) {
        return errorJson(e.what()).dump();
    }
}

// The "more options" field's words as the Try-its' shell splits them (the course site's splitter, so
// a line is read one way everywhere, and what it cannot run exactly is refused with the reason).
std::string shellWords(const std::string& line) {
    const ShellWords split = splitShellWords(line);
    return json{{"words", split.words}, {"refusal", split.refusal}}.dump();
}

std::string buildInfo() {
    return json{{"kernels", ml::kernels::active().name},
#ifdef LLAMA_NO_THREADS
                {"threads", false},
#else
                {"threads", true},
#endif
                {"trace", live().trace}}
        .dump();
}

}  // namespace

EMSCRIPTEN_BINDINGS(llama_walkthrough) {
    emscripten::function("start", &start);
    emscripten::function("stop", &stop);
    emscripten::function("stepRun", &stepRun);
    emscripten::function("pageData", &pageData);
    emscripten::function("pagePart", &pagePart);
    emscripten::function("pageBytes", &pageBytes);
    emscripten::function("attentionArithmetic", &attentionArithmetic);
    emscripten::function("exportPage", &exportPage);
    emscripten::function("buildInfo", &buildInfo);
    emscripten::function("shellWords", &shellWords);
    emscripten::function("train", &train);
    emscripten::function("unloadModel", &unloadModel);
}
