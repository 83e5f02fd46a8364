#include "session/model_source.h"

#include "io/atomic_output.h"

#include <fmt/format.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include <filesystem>
#include <stdexcept>

#include "io/input_file.h"
#include "formats/gguf/gguf_lora.h"
#include "formats/gguf/gguf_model.h"
#include "formats/hf/hf_loader.h"
#include "formats/llama2c/llama2c_header.h"
#include "formats/llama2c/llama2c_model.h"
#include "formats/meta/meta_model.h"
#include "formats/meta/params_json.h"
#include "model/synthetic.h"
#include "tokenizer/tokenizer_file.h"

namespace llama {

namespace fs = std::filesystem;

namespace {
enum class ModelFormat { Meta, HuggingFace, Gguf, Llama2c, Unknown };

// Which format the files at `path` are, looked at once per load. A dry run reads no weights, so
// for it a Hugging Face directory needs only its config.json.
ModelFormat detectModelFormat(const std::string& path, bool shapesOnly) {
    const fs::path dir(path);
    if (fs::is_directory(dir)) {
        if (fs::is_regular_file(dir / "params.json")) return ModelFormat::Meta;
        if (shapesOnly ? fs::exists(dir / "config.json") : isHfDirectory(path)) return ModelFormat::HuggingFace;
        return ModelFormat::Unknown;
    }
    if (isGgufFile(path)) return ModelFormat::Gguf;
    if (isLlama2cFile(path)) return ModelFormat::Llama2c;
    return ModelFormat::Unknown;
}

// The model files' weights, read by the loader of their format.
Model loadFiles(const std::string& path, ModelFormat format, const std::string& tokenizer, const LoadProgress& progress) {
    switch (format) {
        case ModelFormat::Meta: return loadMetaModel(path, progress);
        case ModelFormat::HuggingFace: return loadHfModel(path, progress);
        case ModelFormat::Gguf: return loadGgufModel(path, progress);
        case ModelFormat::Llama2c: return loadLlama2cModel(path, tokenizer, progress);
        case ModelFormat::Unknown: break;
    }
    throw std::runtime_error(fmt::format(
        "'{}' is not a model this program can read: looked for a directory in Meta's layout (params.json, "
        "consolidated.00.pth, tokenizer.model) or in Hugging Face's (config.json, model.safetensors or "
        "model.safetensors.index.json, tokenizer.json), a .gguf file (starting with \"GGUF\") or a llama2.c checkpoint (*.bin, "
        "with tokenizer.bin beside it)",
        path));
}

// A dry run of model files: what the format says about the model and its tokenizer, with
// shape-only weights. Meta's layout: params.json and tokenizer.model (consolidated.00.pth is not
// read); Hugging Face's: config.json and tokenizer.json; GGUF: the header and metadata; llama2.c:
// the header and tokenizer.bin.
Model loadShapesOnly(const std::string& path, ModelFormat format, const std::string& tokenizer) {
    if (format == ModelFormat::Gguf) return loadGgufModel(path, {}, true);
    if (format == ModelFormat::Llama2c) return loadLlama2cModel(path, tokenizer, {}, true);
    Model model;
    if (format == ModelFormat::HuggingFace) {
        loadHfModelWithoutWeights(path, model);
    } else {
        const fs::path dir(path);
        for (const char* name : {"params.json", "tokenizer.model"})
            if (!fs::is_regular_file(dir / name))
                throw std::runtime_error(fmt::format("{}: missing {} (a dry run reads params.json and tokenizer.model of Meta's layout, "
                                                     "config.json and tokenizer.json of Hugging Face's, or a .gguf file's metadata)",
                                                     path, name));
        model.args = loadParamsJson((dir / "params.json").string());
        model.tokenizer = loadMetaTokenizer(path, model.args);
        model.path = path;
    }
    model.tensors = syntheticWeights(model.args, 0, true);
    return model;
}

void requireExists(const std::string& path) {
    if (!fs::exists(path)) throw std::runtime_error(fmt::format("model path '{}' does not exist", path));
}
}  // namespace

std::string ModelSource::describe() const {
    return kind == Kind::Synthetic ? fmt::format("synthetic preset '{}' (random weights)", pathOrPreset) : pathOrPreset;
}

std::string ModelSource::loadKey() const {
    // Lengths first, so no path or tokenizer can spell another's key.
    std::string key = fmt::format("{} {}:{} {}:{} {}", kind == Kind::Synthetic ? "synthetic" : "files", pathOrPreset.size(), pathOrPreset,
                                  tokenizer.size(), tokenizer, kind == Kind::Synthetic ? seed : 0);
    for (const LoraFile& f : lora) key += fmt::format(" lora {}:{}:{}", f.path.size(), f.path, f.scale);
    return key;
}

Model loadModelSource(const ModelSource& source, const LoadOptions& options) {
    if (options.maxSeqLen > ModelArgs::kMaxPositions)
        throw std::invalid_argument(fmt::format("context length {} is more than {} positions", options.maxSeqLen, ModelArgs::kMaxPositions));
    // Every file of the model is an input no output of this process may replace (the viewer's exports too).
    if (source.kind == ModelSource::Kind::Files) noteInputFile(source.pathOrPreset);
    noteInputFile(source.tokenizer);
    Model model;
    const ModelFormat format =
        source.kind == ModelSource::Kind::Files ? detectModelFormat(source.pathOrPreset, options.shapesOnly) : ModelFormat::Unknown;
    if (!source.tokenizer.empty() && source.kind != ModelSource::Kind::Synthetic && format != ModelFormat::Llama2c)
        throw std::invalid_argument("--tokenizer is for --synthetic presets and llama2.c checkpoints: other models' files bring their own "
                                    "tokenizer");
    if (source.kind == ModelSource::Kind::Synthetic) {
        std::shared_ptr<const Tokenizer> tokenizer;
        if (!source.tokenizer.empty()) {
            tokenizer = loadTokenizerFile(source.tokenizer);
            // Checked before 8B's weights are made.
            if (const int presetVocab = syntheticArgs(source.pathOrPreset).vocab_size; tokenizer->vocabSize() != presetVocab)
                throw std::invalid_argument(fmt::format("{}: the tokenizer has {} tokens, but the synthetic preset '{}' has a vocabulary of {}: "
                                                        "choose a tokenizer of that size (or none, for a byte tokenizer)",
                                                        source.tokenizer, tokenizer->vocabSize(), source.pathOrPreset, presetVocab));
        }
        if (!options.shapesOnly) {
            // Random weights are made in memory: refused up front when they cannot fit.
            const Model shapes = makeSyntheticModel(source.pathOrPreset, source.seed, true, tokenizer);
            double bytes = 0;
            for (const auto& [name, t] : shapes.tensors) bytes += double(dtypeBytes(t.dtype(), t.numel()));
            if (const int64_t available = memoryAvailable(); available > 0 && bytes > double(available))
                throw std::invalid_argument(fmt::format("the synthetic preset '{}' needs {:.1f} GB of memory for its weights, more than the "
                                                        "{:.1f} GB this process may use (--dry-run shows its shapes without them)",
                                                        source.pathOrPreset, bytes / 1e9, available / 1e9));
        }
        model = makeSyntheticModel(source.pathOrPreset, source.seed, options.shapesOnly, tokenizer);
    } else {
        requireExists(source.pathOrPreset);
        model = options.shapesOnly ? loadShapesOnly(source.pathOrPreset, format, source.tokenizer)
                                   : loadFiles(source.pathOrPreset, format, source.tokenizer, options.progress);
    }
    if (source.kind == ModelSource::Kind::Files) model.checkWeights();
    for (const LoraFile& f : source.lora) {
        noteInputFile(f.path);
        model.adapters.push_back(readLoraAdapter(f, model));
    }
    if (options.shapesOnly) model.format += (model.format.empty() ? "" : ", ") + std::string("dry run: shape-only weights");
    if (options.maxSeqLen > 0) model.args.max_seq_len = options.maxSeqLen;
    if (!options.shapesOnly) requireRunMemory(model.args, "choose a smaller --max-seq-len");
    return model;
}

void requireRunMemory(const ModelArgs& args, const std::string& remedy) {
    const int64_t available = memoryAvailable();
    if (available > 0 && args.runBytes() > available)
        throw std::invalid_argument(fmt::format("a context of {} positions needs {:.1f} GB for the KV cache and RoPE table, more than "
                                                "the {:.1f} GB of memory this process may use: {}",
                                                args.max_seq_len, args.runBytes() / 1e9, available / 1e9, remedy));
}

Model loadModel(const std::string& path, const LoadProgress& progress) {
    requireExists(path);
    return loadFiles(path, detectModelFormat(path, false), {}, progress);
}

}  // namespace llama
