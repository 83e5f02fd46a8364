// The command line both front ends share (options/run_options.h), as argv vectors: the input's
// NUL-terminated words. A refusal must be CLI11's ParseError (exit 1 with a message), never
// another exception, a wrap-around or a crash.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "options/run_options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<std::string> words{"llama-walkthrough"};
    std::string word;
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == 0) words.push_back(std::move(word)), word.clear();
        else word += char(data[i]);
    }
    if (!word.empty()) words.push_back(word);  // a last NUL ends the last word
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());

    CLI::App app{"fuzz"};
    llama::options::ModelChoice choice;
    llama::GenerationSettings settings;
    int threads = 0;
    llama::options::addModelOptions(app, choice, settings.sampling.seed);
    llama::options::addGenerationOptions(app, settings);
    llama::options::addWhatIfOptions(app, settings.whatIf);
    llama::options::addThreadsOption(app, threads);
    try {
        app.parse(int(argv.size()), argv.data());
    } catch (const CLI::ParseError&) {
        return 0;  // what parseCommandLine turns into exit 1
    } catch (const std::exception& e) {
        std::fprintf(stderr, "an exception escaped the option parser: %s\n", e.what());
        std::abort();
    }
    // What was accepted is in range: the checks cannot have been bypassed.
    const llama::SamplingSettings& s = settings.sampling;
    if (!(s.temperature >= 0 && s.temperature <= 100) || !(s.topP > 0 && s.topP <= 1) || s.topK < 0 || settings.maxTokens < 0 ||
        !(s.repeatPenalty > 0 && s.repeatPenalty <= 10) || threads < 0)
        std::abort();
    for (auto [layer, head] : settings.whatIf.ablateHeads)
        if (layer < 0 || head < 0) std::abort();
    for (int layer : settings.whatIf.skipLayers)
        if (layer < 0) std::abort();
    return 0;
}
