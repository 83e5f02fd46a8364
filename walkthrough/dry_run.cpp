#include "dry_run.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <stdexcept>

#include "formats/meta/params_json.h"
#include "formats/model_loader.h"
#include "model/synthetic.h"

namespace llama::cli {

namespace fs = std::filesystem;

Model loadDryRunModel(const Options& options) {
    Model model;
    if (!options.synthetic.empty()) {
        model = makeSyntheticModel(options.synthetic, options.sampling.seed, true);
    } else {
        const fs::path dir(options.model);
        for (const char* name : {"params.json", "tokenizer.model"})
            if (!fs::is_regular_file(dir / name))
                throw std::runtime_error(fmt::format("{}: missing {} (a dry run reads params.json and tokenizer.model)", options.model, name));
        model.args = loadParamsJson((dir / "params.json").string());
        model.tokenizer = loadMetaTokenizer(options.model, model.args);
        model.tensors = syntheticWeights(model.args, 0, true);
        model.path = options.model;
    }
    model.format += (model.format.empty() ? "" : ", ") + std::string("dry run: shape-only weights");
    if (options.maxSeqLen > 0) model.args.max_seq_len = options.maxSeqLen;
    return model;
}

}  // namespace llama::cli
