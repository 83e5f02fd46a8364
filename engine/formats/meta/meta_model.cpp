#include "formats/meta/meta_model.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "formats/meta/params_json.h"
#include "formats/meta/torch_checkpoint.h"
#include "tokenizer/sentencepiece_tokenizer.h"
#include "tokenizer/tiktoken_tokenizer.h"

namespace llama {

namespace fs = std::filesystem;

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
