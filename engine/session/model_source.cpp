#include "session/model_source.h"

#include <fmt/format.h>

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
    Model model;
    if (source.kind == ModelSource::Kind::Synthetic) model = makeSyntheticModel(source.pathOrPreset, source.seed, options.shapesOnly);
    else if (options.shapesOnly) model = loadShapesOnly(source.pathOrPreset);
    else model = loadModel(source.pathOrPreset, options.progress);
    if (options.shapesOnly) model.format += (model.format.empty() ? "" : ", ") + std::string("dry run: shape-only weights");
    if (options.maxSeqLen > 0) model.args.max_seq_len = options.maxSeqLen;
    return model;
}

}  // namespace llama
