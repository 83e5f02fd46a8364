#include "formats/hf/hf_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "formats/hf/hf_config.h"
#include "formats/hf/hf_weights.h"
#include "formats/hf/safetensors.h"
#include "tokenizer/hf_tokenizer.h"

#include "io/json_file.h"

namespace llama {

namespace fs = std::filesystem;

namespace {

// A weights file and the tensors the index says it holds (none listed for a single file).
struct WeightFile {
    fs::path path;
    std::set<std::string> expected;
};

// model.safetensors, or each shard model.safetensors.index.json names, once.
std::vector<WeightFile> weightFiles(const fs::path& dir) {
    if (fs::is_regular_file(dir / "model.safetensors")) return {{dir / "model.safetensors", {}}};
    const fs::path index = dir / "model.safetensors.index.json";
    if (!fs::is_regular_file(index))
        throw std::runtime_error(dir.string() + ": missing model.safetensors (or model.safetensors.index.json for a sharded model)");
    nlohmann::json j = readJsonFile(index.string());
    if (!j.contains("weight_map") || !j["weight_map"].is_object())
        throw std::runtime_error(index.string() + ": no 'weight_map' object");
    std::vector<WeightFile> files;
    for (const auto& [name, file] : j["weight_map"].items()) {
        if (!file.is_string()) throw std::runtime_error(fmt::format("{}: weight_map entry '{}' is not a file name", index.string(), name));
        const std::string f = file.get<std::string>();
        // Only plain file names beside the index: the index must not point elsewhere.
        if (f.empty() || f.find('/') != std::string::npos || f == "..")
            throw std::runtime_error(fmt::format("{}: weight_map entry '{}' names '{}', not a file in the directory", index.string(), name, f));
        auto it = std::find_if(files.begin(), files.end(), [&](const WeightFile& w) { return w.path == dir / f; });
        if (it == files.end()) it = files.insert(files.end(), {dir / f, {}});
        it->expected.insert(name);
    }
    return files;
}

}  // namespace

bool isHfDirectory(const std::string& dir) {
    const fs::path d(dir);
    return fs::is_regular_file(d / "config.json") &&
           (fs::is_regular_file(d / "model.safetensors") || fs::is_regular_file(d / "model.safetensors.index.json"));
}

HfConfig loadHfModelWithoutWeights(const std::string& dir, Model& m) {
    const fs::path d(dir);
    for (const char* name : {"config.json", "tokenizer.json"})
        if (!fs::is_regular_file(d / name))
            throw std::runtime_error(fmt::format("{}: missing {} (a Hugging Face model has config.json, *.safetensors, tokenizer.json)",
                                                 dir, name));
    HfConfig config = loadHfConfig((d / "config.json").string());
    m.format = "Hugging Face safetensors";
    m.path = dir;
    m.args = config.args;
    const fs::path tokConfig = d / "tokenizer_config.json";
    auto tokenizer = std::make_shared<HfTokenizer>((d / "tokenizer.json").string(),
                                                   fs::is_regular_file(tokConfig) ? tokConfig.string() : std::string());
    if (tokenizer->vocabSize() != m.args.vocab_size)
        throw std::runtime_error(fmt::format("{}: config.json says vocab_size {}, but tokenizer.json has {} tokens", dir,
                                             m.args.vocab_size, tokenizer->vocabSize()));
    m.chatTemplate = tokenizer->chatTemplate();
    m.tokenizer = tokenizer;
    return config;
}

Model loadHfModel(const std::string& dir, const LoadProgress& progress) {
    const fs::path d(dir);
    Model m;
    const HfConfig config = loadHfModelWithoutWeights(dir, m);

    std::vector<SafetensorsFile> files;
    size_t total = 0, done = 0;
    for (const WeightFile& w : weightFiles(d)) {
        files.push_back(SafetensorsFile::load(w.path.string()));
        total += files.back().file().size();
        std::set<std::string> missing = w.expected;
        for (const NamedTensor& t : files.back().tensors()) missing.erase(t.name);
        if (!missing.empty())
            throw std::runtime_error(fmt::format("{}: model.safetensors.index.json puts '{}' in this file, but it is not there",
                                                 w.path.string(), *missing.begin()));
    }
    std::set<std::string> names;
    for (const SafetensorsFile& f : files) {
        f.prefault([&](size_t fileDone, size_t) {
            if (progress) progress(done + fileDone, total);
        });
        done += f.file().size();
        for (const NamedTensor& t : f.tensors()) {
            const auto meta = metaTensorName(t.name);
            if (!meta) {
                // Old checkpoints store RoPE's frequencies; we compute them. Anything else (biases,
                // another architecture's weights) would be silently ignored, so it is an error.
                if (t.name.ends_with("rotary_emb.inv_freq")) continue;
                throw std::runtime_error(fmt::format("{}: tensor '{}' is not part of a Llama model", f.file().path(), t.name));
            }
            if (!names.insert(*meta).second) throw std::runtime_error(fmt::format("{}: tensor '{}' appears twice", dir, t.name));
            // Un-permuting needs its own copy of wq/wk: a view into the file cannot reorder rows.
            if (meta->ends_with("attention.wq.weight"))
                m.tensors.emplace_back(*meta, unpermuteRowsFromRotateHalf(t.tensor, m.args.n_heads));
            else if (meta->ends_with("attention.wk.weight"))
                m.tensors.emplace_back(*meta, unpermuteRowsFromRotateHalf(t.tensor, m.args.n_kv_heads));
            else
                m.tensors.emplace_back(*meta, t.tensor);
        }
    }
    if (!names.count("output.weight")) {
        if (!config.tieWordEmbeddings)
            throw std::runtime_error(dir + ": no lm_head.weight, and config.json does not set tie_word_embeddings");
        // Tied: the output projection is the embedding matrix itself (same view, no copy).
        const auto embeddings = std::find_if(m.tensors.begin(), m.tensors.end(), [](const auto& t) { return t.first == "tok_embeddings.weight"; });
        if (embeddings == m.tensors.end()) throw std::runtime_error(dir + ": no model.embed_tokens.weight");
        m.tensors.emplace_back("output.weight", Tensor(embeddings->second));
    }
    return m;
}

}  // namespace llama
