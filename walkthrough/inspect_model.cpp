#include "inspect_model.h"

#include <fmt/format.h>

#include <algorithm>

#include "model_summary.h"

namespace llama::cli {

CLI::App* addInspectCommand(CLI::App& app, std::string& modelPath) {
    CLI::App* inspect = app.add_subcommand("inspect", "Describe a model on disk: format, args, special tokens, tensor table");
    inspect->add_option("--model", modelPath, "Model directory (Meta's or Hugging Face's layout); default: the bundled model");
    return inspect;
}

void printModelInspection(const Model& m) {
    printModelSummary(m);
    fmt::print("\n");

    // Every special token with its role, except Llama 3's reserved placeholders, which are only counted.
    const Tokenizer& tok = *m.tokenizer;
    const auto stops = tok.stopIds();
    fmt::print("Special tokens (id, text, role):\n");
    int reserved = 0, count = 0;
    for (int32_t id = 0; id < tok.vocabSize(); ++id) {
        const bool bos = id == tok.bosId(), stop = std::find(stops.begin(), stops.end(), id) != stops.end();
        if (!tok.isSpecial(id) && !bos && !stop) continue;
        ++count;
        const std::string text = tok.decodeToken(id);
        if (!bos && !stop && text.find("reserved_special_token") != std::string::npos) {
            ++reserved;
            continue;
        }
        const char* role = bos ? "BOS" : stop ? "stops generation" : "";
        fmt::print("  {:>7}  {}\n", id, *role ? fmt::format("{:<28} {}", text, role) : text);
    }
    fmt::print("  {} special tokens{}\n", count, reserved ? fmt::format(" ({} reserved placeholders not listed)", reserved) : "");
    if (!m.chatTemplate.empty()) fmt::print("Chat template (tokenizer_config.json, {} characters):\n  {}\n", m.chatTemplate.size(), m.chatTemplate);
    fmt::print("\n");

    size_t nameWidth = 4;
    for (const auto& [name, t] : m.tensors) nameWidth = std::max(nameWidth, name.size());
    // Names as the engine calls them (Meta's); a Hugging Face file's names are mapped at load.
    fmt::print("Tensors: {}, {} bytes ({:.1f} MB), dtype {}\n", m.tensors.size(), m.totalBytes(), m.totalBytes() / 1e6, m.weightsDType());
    fmt::print("  {:<{}}  {:<14}  {:<5}  {:>12}\n", "name", nameWidth, "shape", "dtype", "bytes");
    for (const auto& [name, t] : m.tensors)
        fmt::print("  {:<{}}  {:<14}  {:<5}  {:>12}\n", name, nameWidth, shapeToString(t.shape()), dtypeName(t.dtype()),
                   t.byteSize());
}

}  // namespace llama::cli
