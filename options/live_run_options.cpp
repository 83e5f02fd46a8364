#include "live_run_options.h"

#include <stdexcept>

#include "cli_messages.h"
#include "option_combinations.h"

namespace llama::options {

LiveRunRequest parseLiveRun(const std::vector<std::string>& words) {
    LiveRunRequest r;
    CLI::App app{"llama-walkthrough (in the browser)", "llama-walkthrough"};
    addModelOptions(app, r.model, r.seed);
    addGenerationOptions(app, r.settings);
    addWhatIfOptions(app, r.settings.whatIf);
    addContextLengthOption(app, r.maxSeqLen);
    bool quiet = false;  // the page shows only the text anyway
    app.add_flag("-q,--quiet", quiet, "only the text and the summary");
    std::vector<std::string> reversed(words.rbegin(), words.rend());  // CLI11 takes them last first
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError& e) {
        throw std::invalid_argument(inOurWords(e));
    }
    // The CLI's and the viewer's rules: an option another drops, or that applies only beside another, is refused.
    requireRunOptionsCombine(app);
    r.settings.sampling.seed = r.seed;
    // Without --model or --synthetic, the bundled model, as the CLI runs it (the page keeps it at
    // assets/model beside its working folder).
    if (r.model.model.empty() && r.model.synthetic.empty()) r.model.model = "assets/model";
    return r;
}

}  // namespace llama::options
