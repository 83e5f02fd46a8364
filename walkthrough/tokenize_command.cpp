#include "tokenize_command.h"

#include <fmt/format.h>

#include <stdexcept>

#include "session/model_source.h"
#include "tokenize_report.h"

namespace llama::cli {

CLI::App* addTokenizeCommand(CLI::App& app, TokenizeOptions& o) {
    CLI::App* cmd = app.add_subcommand("tokenize", "Show how text becomes token ids: pre-tokenizer pieces, BPE merges, ids");
    options::addTokenizeOptions(*cmd, o.tokenize);
    cmd->add_option("--model", o.model, "Model whose tokenizer is used; default: the bundled model");
    return cmd;
}

int runTokenize(const TokenizeOptions& o) {
    // Only the tokenizer is needed: a shapes-only load reads no weights.
    const Model model = loadModelSource({ModelSource::Kind::Files, o.model}, {.shapesOnly = true});
    std::string out;
    try {
        appendTokenizeReport(out, *model.tokenizer, o.tokenize.text, o.tokenize.word);
    } catch (const std::invalid_argument&) {
        fmt::print("{}", out);  // the pieces the message refers to
        throw;
    }
    fmt::print("{}", out);
    return 0;
}

}  // namespace llama::cli
