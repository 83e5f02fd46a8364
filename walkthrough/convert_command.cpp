#include "convert_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "io/atomic_output.h"
#include "formats/gguf/gguf_export.h"
#include "formats/gguf/gguf_file.h"
#include "formats/hf/hf_export.h"
#include "formats/llama2c/llama2c_export.h"
#include "formats/meta/meta_export.h"
#include "model/synthetic.h"
#include "options/checked_option.h"
#include "session/model_source.h"

namespace llama::cli {

namespace {

// Each target writes `model` to `out`.
using Writer = void (*)(const Model& model, const std::string& out);

const std::map<std::string, Writer>& targets() {
    static const std::map<std::string, Writer> t = {
        {"gguf-f32", [](const Model& m, const std::string& out) { exportGguf(m, DType::F32, out); }},
        {"gguf-bf16", [](const Model& m, const std::string& out) { exportGguf(m, DType::BF16, out); }},
        {"gguf-q8_0", [](const Model& m, const std::string& out) { exportGguf(m, DType::Q8_0, out); }},
        {"gguf-q4_0", [](const Model& m, const std::string& out) { exportGguf(m, DType::Q4_0, out); }},
        {"gguf-q4_k", [](const Model& m, const std::string& out) { exportGguf(m, DType::Q4_K, out); }},
        {"gguf-q6_k", [](const Model& m, const std::string& out) { exportGguf(m, DType::Q6_K, out); }},
        // --out is a directory here: a Hugging Face model is several files (hf_export.h).
        {"safetensors", [](const Model& m, const std::string& out) { exportHf(m, out); }},
        // And in Meta's layout (meta_export.h): BF16 as Meta ships it, or F32 as training keeps it.
        {"meta", [](const Model& m, const std::string& out) { exportMeta(m, DType::BF16, out); }},
        {"meta-f32", [](const Model& m, const std::string& out) { exportMeta(m, DType::F32, out); }},
        // llama2.c: the checkpoint at --out, tokenizer.bin beside it; legacy is the layout run.c reads.
        {"llama2c", [](const Model& m, const std::string& out) { exportLlama2c(m, out, 0); }},
        {"llama2c-v1", [](const Model& m, const std::string& out) { exportLlama2c(m, out, 1); }},
    };
    return t;
}

// What the GGUF file holds, read back from it: a weight whose rows are not whole blocks of the
// requested type was written in another (gguf_export.h), and the report says so.
void reportGgufTypes(const std::string& path, const std::string& target) {
    const GgufFile file = GgufFile::open(path);
    std::map<std::string, int> count;
    std::map<std::string, std::vector<std::string>> matrices;  // 2-D weights by type
    for (const GgufTensorInfo& t : file.tensors()) {
        count[dtypeName(t.dtype)]++;
        if (t.shape.size() == 2) matrices[dtypeName(t.dtype)].push_back(t.name);
    }
    std::vector<std::string> parts;
    for (const auto& [type, n] : count) parts.push_back(fmt::format("{} {}", n, type));
    fmt::print("Tensors written: {}\n", fmt::join(parts, ", "));
    std::string wanted = target.substr(5);
    for (char& c : wanted) c = char(std::toupper(static_cast<unsigned char>(c)));
    for (const auto& [type, names] : matrices)
        if (type != wanted)
            fmt::print("Note: {} weight matrices are {}, not {}: their rows are not whole {} blocks (e.g. {})\n", names.size(), type, wanted,
                       wanted, names.front());
}

}  // namespace

CLI::App* addConvertCommand(CLI::App& app, ConvertOptions& o) {
    CLI::App* cmd = app.add_subcommand("convert", "Write a model in another format (GGUF, with quantization; safetensors; Meta's layout; llama2.c)");
    auto* model = cmd->add_option("--model", o.model, "The model to convert (any --model the walkthrough reads)");
    auto* synthetic = cmd->add_option("--synthetic", o.synthetic,
                                      "Write a seeded random-weight model instead: " + fmt::format("{}", fmt::join(syntheticPresets(), ", ")))
                          ->excludes(model);
    options::addUnsigned(*cmd, "--seed", o.seed, "a whole number from 0 to 18446744073709551615", "Seed of the synthetic weights")
        ->needs(synthetic);
    std::vector<std::string> names;
    for (const auto& [name, writer] : targets()) names.push_back(name);
    cmd->add_option("--to", o.to, "Target format: " + fmt::format("{}", fmt::join(names, ", ")))->required()->check(CLI::IsMember(names));
    cmd->add_option("--out", o.out, "Output file (a directory for safetensors, meta and meta-f32)")->required();
    return cmd;
}

int runConvert(const ConvertOptions& o) {
    // CLI11 refuses both; neither is checked here, with the same "error:" as any bad input.
    if (o.model.empty() && o.synthetic.empty()) throw std::invalid_argument("convert needs --model PATH or --synthetic PRESET");
    // Before the model is read: writing over it would replace (and, mapped, crash on) the source.
    const bool folder = o.to == "safetensors" || o.to.starts_with("meta");
    checkOutputPath("--out", o.out, {o.model}, {}, folder);
    // Meta's files beside another model's would make a folder that is two models at once.
    std::error_code ec;
    if (o.to.starts_with("meta") && std::filesystem::is_directory(o.out, ec) && !std::filesystem::is_empty(o.out, ec))
        throw std::invalid_argument("--out '" + o.out + "' is a folder with files in it: Meta's layout is written into a new or empty folder");
    if (o.to.starts_with("llama2c")) {
        // llama.c reads its tokenizer from tokenizer.bin beside the model: a file nobody named here,
        // so it is written only where it replaces nothing (another model's tokenizer, say).
        const std::string tokenizer = llama2cTokenizerPathFor(o.out);
        if (std::filesystem::exists(o.out, ec) && !std::filesystem::is_regular_file(o.out, ec))
            throw std::invalid_argument("--out '" + o.out + "' is not a regular file, but a llama2.c conversion also writes tokenizer.bin beside "
                                        "--out: name a file in a folder");
        if (std::filesystem::exists(std::filesystem::symlink_status(tokenizer, ec)))
            throw std::invalid_argument("--out '" + o.out + "': '" + tokenizer + "' exists, and a llama2.c conversion writes its tokenizer there: "
                                        "move it away or convert into another folder");
        checkOutputPath("--out's tokenizer.bin", tokenizer, {o.model});
    }
    // A synthetic model has a real vocabulary of the preset's size (the 256 bytes, fillers, Llama 3's
    // special tokens: synthetic.h); GGUF stores it as Llama 3's "gpt2" kind with no merges (no filler
    // is two tokens joined), which both our reader and llama.cpp load.
    Model model = loadModelSource(o.synthetic.empty() ? ModelSource{ModelSource::Kind::Files, o.model}
                                                      : ModelSource{ModelSource::Kind::Synthetic, o.synthetic, o.seed});
    targets().at(o.to)(model, o.out);
    // safetensors and meta write a directory: its files are summed.
    uintmax_t bytes = 0;
    if (std::filesystem::is_directory(o.out))
        for (const auto& entry : std::filesystem::directory_iterator(o.out)) bytes += entry.file_size();
    else if (std::filesystem::is_regular_file(o.out))  // not /dev/null
        bytes = std::filesystem::file_size(o.out);
    fmt::print("Wrote {} ({}, {:.1f} MB) from {}\n", o.out, o.to, bytes / 1e6, model.format);
    if (o.to.starts_with("gguf") && std::filesystem::is_regular_file(o.out)) reportGgufTypes(o.out, o.to);
    if (o.to.starts_with("llama2c")) fmt::print("Wrote {} (llama2.c's tokenizer.bin)\n", llama2cTokenizerPathFor(o.out));
    return 0;
}

}  // namespace llama::cli
