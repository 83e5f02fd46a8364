#include "formats/model_loader.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "formats/gguf/gguf_model.h"
#include "formats/llama2c/llama2c_header.h"
#include "formats/llama2c/llama2c_model.h"
#include "formats/meta/params_json.h"
#include "formats/hf/hf_loader.h"
#include "tokenizer/hf_tokenizer.h"
#include "tokenizer/sentencepiece_tokenizer.h"
#include "tokenizer/tiktoken_tokenizer.h"

namespace llama {

namespace fs = std::filesystem;

namespace {
bool isMetaDirectory(const fs::path& dir) { return fs::is_regular_file(dir / "params.json"); }
}  // namespace

// By extension or by magic, so a GGUF file named otherwise is still recognised.
bool isGgufFile(const std::string& path) {
    const fs::path file(path);
    if (!fs::is_regular_file(file)) return false;
    if (file.extension() == ".gguf") return true;
    char magic[4] = {};
    std::ifstream in(file, std::ios::binary);
    return in.read(magic, 4) && std::string_view(magic, 4) == "GGUF";
}

Model loadModel(const std::string& path, const LoadProgress& progress) {
    fs::path p(path);
    if (!fs::exists(p)) throw std::runtime_error(fmt::format("model path '{}' does not exist", path));
    if (fs::is_directory(p) && isMetaDirectory(p)) return loadMetaModel(path, progress);
    if (fs::is_directory(p) && isHfDirectory(path)) return loadHfModel(path, progress);
    if (isGgufFile(path)) return loadGgufModel(path, progress);
    if (isLlama2cFile(path)) return loadLlama2cModel(path, {}, progress);
    throw std::runtime_error(fmt::format(
        "'{}' is not a model this program can read: looked for a directory in Meta's layout (params.json, "
        "consolidated.00.pth, tokenizer.model) or in Hugging Face's (config.json, model.safetensors or "
        "model.safetensors.index.json, tokenizer.json), a .gguf file (starting with \"GGUF\") or a llama2.c checkpoint (*.bin, "
        "with tokenizer.bin beside it)",
        path));
}

std::shared_ptr<const Tokenizer> loadMetaTokenizer(const std::string& dir, ModelArgs& args) {
    const std::string path = (fs::path(dir) / "tokenizer.model").string();
    if (!isSentencePieceModel(path)) {
        auto tokenizer = std::make_shared<TiktokenTokenizer>(path);
        if (tokenizer->vocabSize() != args.vocab_size)
            throw std::runtime_error(fmt::format("{}: params.json says vocab_size {}, but tokenizer.model has {} tokens + 256 special = {}",
                                                 dir, args.vocab_size, tokenizer->numBaseTokens(), tokenizer->vocabSize()));
        return tokenizer;
    }
    // Llama 2: SentencePiece; its params.json says vocab_size -1 (the tokenizer decides).
    auto tokenizer = std::make_shared<SentencePieceTokenizer>(path);
    if (args.vocab_size == -1) args.vocab_size = tokenizer->vocabSize();
    if (args.vocab_size != tokenizer->vocabSize())
        throw std::runtime_error(fmt::format("{}: params.json says vocab_size {}, but the SentencePiece tokenizer.model has {} pieces",
                                             dir, args.vocab_size, tokenizer->vocabSize()));
    return tokenizer;
}

std::shared_ptr<const Tokenizer> loadTokenizerFile(const std::string& path) {
    const fs::path file(path);
    if (!fs::is_regular_file(file)) throw std::runtime_error(fmt::format("tokenizer file '{}' does not exist or is not a regular file", path));
    std::ifstream in(file, std::ios::binary);
    char first = 0;
    while (in.get(first) && std::isspace(static_cast<unsigned char>(first))) {
    }
    if (first == '{') {
        const fs::path config = file.parent_path() / "tokenizer_config.json";
        return std::make_shared<HfTokenizer>(path, fs::is_regular_file(config) ? config.string() : std::string());
    }
    if (isSentencePieceModel(path)) return std::make_shared<SentencePieceTokenizer>(path);
    return std::make_shared<TiktokenTokenizer>(path);
}

Model loadMetaModel(const std::string& dir, const LoadProgress& progress) {
    fs::path d(dir);
    for (const char* name : {"params.json", "tokenizer.model", "consolidated.00.pth"}) {
        const fs::file_status st = fs::status(d / name);
        if (!fs::exists(st))
            throw std::runtime_error(fmt::format("{}: missing {} (Meta's layout has params.json, consolidated.00.pth, tokenizer.model)",
                                                 dir, name));
        if (!fs::is_regular_file(st))
            throw std::runtime_error(fmt::format("{}: {} is a {}, not a regular file", dir, name,
                                                 fs::is_directory(st) ? "directory" : fs::is_fifo(st) ? "FIFO" : "special file"));
        if (fs::file_size(d / name) == 0) throw std::runtime_error(fmt::format("{}: {} is empty", dir, name));
    }
    Model m;
    m.format = "Meta consolidated.00.pth";
    m.path = dir;
    m.args = loadParamsJson((d / "params.json").string());
    m.tokenizer = loadMetaTokenizer(dir, m.args);
    TorchCheckpoint checkpoint = TorchCheckpoint::load((d / "consolidated.00.pth").string());
    checkpoint.prefault(progress);
    for (const auto& t : checkpoint.tensors()) m.tensors.emplace_back(t.name, t.tensor);
    return m;
}

}  // namespace llama
