#include "formats/model_loader.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "tokenizer/tiktoken_tokenizer.h"

namespace llama {

namespace fs = std::filesystem;

namespace {
bool isMetaDirectory(const fs::path& dir) { return fs::is_regular_file(dir / "params.json"); }
}  // namespace

Model loadModel(const std::string& path, const LoadProgress& progress) {
    fs::path p(path);
    if (!fs::exists(p)) throw std::runtime_error(fmt::format("model path '{}' does not exist", path));
    if (fs::is_directory(p) && isMetaDirectory(p)) return loadMetaModel(path, progress);
    throw std::runtime_error(fmt::format(
        "'{}' is not a model this program can read: expected a directory in Meta's layout with params.json, "
        "consolidated.00.pth and tokenizer.model",
        path));
}

Model loadMetaModel(const std::string& dir, const LoadProgress& progress) {
    fs::path d(dir);
    for (const char* name : {"params.json", "tokenizer.model", "consolidated.00.pth"})
        if (!fs::is_regular_file(d / name))
            throw std::runtime_error(fmt::format("{}: missing {} (Meta's layout has params.json, consolidated.00.pth, tokenizer.model)",
                                                 dir, name));
    Model m;
    m.format = "Meta consolidated.00.pth";
    m.path = dir;
    m.args = loadParamsJson((d / "params.json").string());
    auto tokenizer = std::make_shared<TiktokenTokenizer>((d / "tokenizer.model").string());
    if (tokenizer->vocabSize() != m.args.vocab_size)
        throw std::runtime_error(fmt::format("{}: params.json says vocab_size {}, but tokenizer.model has {} tokens + 256 special = {}",
                                             dir, m.args.vocab_size, tokenizer->numBaseTokens(), tokenizer->vocabSize()));
    m.tokenizer = tokenizer;
    TorchCheckpoint checkpoint = TorchCheckpoint::load((d / "consolidated.00.pth").string());
    checkpoint.prefault(progress);
    for (const auto& t : checkpoint.tensors()) m.tensors.emplace_back(t.name, t.tensor);
    return m;
}

}  // namespace llama
