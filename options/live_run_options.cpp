#include "live_run_options.h"

#include <stdexcept>

#include "cli_messages.h"
#include "option_combinations.h"

namespace llama::options {

namespace {

// Where the page keeps the bundled model, beside its working folder: a command without --model or
// --synthetic runs it, as the CLI does.
const char* kBundledModel = "assets/model";

// `takesQuiet`: the command takes -q, as the CLI's does (the page shows only the text anyway).
void parseWords(CLI::App& app, const std::vector<std::string>& words, bool takesQuiet) {
    bool quiet = false;
    if (takesQuiet) app.add_flag("-q,--quiet", quiet, "only the text and the summary");
    std::vector<std::string> reversed(words.rbegin(), words.rend());  // CLI11 takes them last first
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError& e) {
        throw std::invalid_argument(inOurWords(e));
    }
}

void bundledUnlessGiven(ModelChoice& model) {
    if (model.model.empty() && model.synthetic.empty()) model.model = kBundledModel;
}

LiveBatchRequest parseLiveBatch(const std::vector<std::string>& words) {
    LiveBatchRequest r;
    CLI::App app{"llama-walkthrough batch (in the browser)", "llama-walkthrough batch"};
    addModelOptions(app, r.model, r.seed);
    addContextLengthOption(app, r.maxSeqLen);
    addBatchOptions(app, r.batch, r.settings);
    parseWords(app, words, true);
    checkBatch(r.batch);
    r.settings.sampling.seed = r.seed;
    bundledUnlessGiven(r.model);
    return r;
}

LivePatchRequest parseLivePatch(const std::vector<std::string>& words) {
    LivePatchRequest r{.model = kBundledModel, .patch = {}};
    CLI::App app{"llama-walkthrough patch (in the browser)", "llama-walkthrough patch"};
    app.add_option("--model", r.model, "Model directory or .gguf file; default: the bundled model");
    addPatchOptions(app, r.patch);
    parseWords(app, words, false);
    return r;
}

LiveTokenizeRequest parseLiveTokenize(const std::vector<std::string>& words) {
    LiveTokenizeRequest r{.model = kBundledModel, .tokenize = {}};
    CLI::App app{"llama-walkthrough tokenize (in the browser)", "llama-walkthrough tokenize"};
    addTokenizeOptions(app, r.tokenize);
    app.add_option("--model", r.model, "Model whose tokenizer is used; default: the bundled model");
    parseWords(app, words, false);
    return r;
}

}  // namespace

LiveRunRequest parseLiveRun(const std::vector<std::string>& words) {
    LiveRunRequest r;
    CLI::App app{"llama-walkthrough (in the browser)", "llama-walkthrough"};
    addModelOptions(app, r.model, r.seed);
    addGenerationOptions(app, r.settings);
    addWhatIfOptions(app, r.settings.whatIf);
    addContextLengthOption(app, r.maxSeqLen);
    parseWords(app, words, true);
    // The CLI's and the viewer's rules: an option another drops, or that applies only beside another, is refused.
    requireRunOptionsCombine(app);
    r.settings.sampling.seed = r.seed;
    bundledUnlessGiven(r.model);
    return r;
}

LiveCommand parseLiveCommand(const std::vector<std::string>& words) {
    const std::string first = words.empty() ? "" : words.front();
    if (first == "batch" || first == "patch" || first == "tokenize") {
        const std::vector<std::string> rest(words.begin() + 1, words.end());
        if (first == "batch") return parseLiveBatch(rest);
        if (first == "patch") return parseLivePatch(rest);
        return parseLiveTokenize(rest);
    }
    return parseLiveRun(words);
}

ModelChoice modelChoice(const LiveCommand& command) {
    ModelChoice files;  // patch's and tokenize's --model: a directory or file
    if (const auto* p = std::get_if<LivePatchRequest>(&command)) files.model = p->model;
    else if (const auto* t = std::get_if<LiveTokenizeRequest>(&command)) files.model = t->model;
    else if (const auto* b = std::get_if<LiveBatchRequest>(&command)) return b->model;
    else return std::get<LiveRunRequest>(command).model;
    return files;
}

}  // namespace llama::options
