#include "session/model_source.h"

#include <fmt/format.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include <filesystem>
#include <stdexcept>

#include "formats/meta/params_json.h"
#include "model/synthetic.h"

namespace llama {

namespace fs = std::filesystem;

namespace {
// A dry run of a model directory: its params.json and tokenizer.model, and shape-only weights of
// the right names (consolidated.00.pth is not read).
Model loadShapesOnly(const std::string& path) {
    const fs::path dir(path);
    for (const char* name : {"params.json", "tokenizer.model"})
        if (!fs::is_regular_file(dir / name))
            throw std::runtime_error(fmt::format("{}: missing {} (a dry run reads params.json and tokenizer.model)", path, name));
    Model model;
    model.args = loadParamsJson((dir / "params.json").string());
    model.tokenizer = loadMetaTokenizer(path, model.args);
    model.tensors = syntheticWeights(model.args, 0, true);
    model.path = path;
    return model;
}
}  // namespace

std::string ModelSource::describe() const {
    return kind == Kind::Synthetic ? fmt::format("synthetic preset '{}' (random weights)", pathOrPreset) : pathOrPreset;
}

Model loadModelSource(const ModelSource& source, const LoadOptions& options) {
    if (options.maxSeqLen > ModelArgs::kMaxPositions)
        throw std::invalid_argument(fmt::format("context length {} is more than {} positions", options.maxSeqLen, ModelArgs::kMaxPositions));
    Model model;
    if (source.kind == ModelSource::Kind::Synthetic) model = makeSyntheticModel(source.pathOrPreset, source.seed, options.shapesOnly);
    else if (options.shapesOnly) model = loadShapesOnly(source.pathOrPreset);
    else model = loadModel(source.pathOrPreset, options.progress);
    if (options.shapesOnly) model.format += (model.format.empty() ? "" : ", ") + std::string("dry run: shape-only weights");
    if (options.maxSeqLen > 0) model.args.max_seq_len = options.maxSeqLen;
    // Refused before anything is allocated: a context length the machine (or the process's
    // address-space limit) cannot hold.
    int64_t available = int64_t(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
    if (rlimit limit; getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        available = std::min(available, int64_t(limit.rlim_cur));
    if (!options.shapesOnly && available > 0 && model.args.runBytes() > available)
        throw std::invalid_argument(fmt::format("a context of {} positions needs {:.1f} GB for the KV cache and RoPE table, more than "
                                                "the {:.1f} GB of memory this process may use: choose a smaller --max-seq-len",
                                                model.args.max_seq_len, model.args.runBytes() / 1e9, available / 1e9));
    return model;
}

}  // namespace llama
