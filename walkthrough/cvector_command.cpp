#include "cvector_command.h"

#include <fmt/format.h>

#include "formats/gguf/gguf_control_vector.h"
#include "io/atomic_output.h"
#include "session/prompts_file.h"
#include "session/model_source.h"
#include "steer/control_vector_maker.h"

namespace llama::cli {

CLI::App* addCvectorCommand(CLI::App& app, CvectorOptions& o) {
    CLI::App* cmd = app.add_subcommand("cvector", "Make a control vector from two prompt files: per layer, the mean block output at the last "
                                                  "position over the positive prompts minus over the negative ones (llama.cpp's GGUF layout)");
    cmd->add_option("--model", o.model, "Model directory or .gguf file; default: the bundled model");
    cmd->add_option("--positive", o.positive, "Prompts to steer towards, one a line")->required();
    cmd->add_option("--negative", o.negative, "Prompts to steer away from, one a line")->required();
    cmd->add_option("-o,--out", o.out, "The control-vector file to write (.gguf)")->required();
    cmd->add_flag("--unit", o.unit, "Scale each layer's direction to norm 1, as llama.cpp's cvector-generator does");
    cmd->add_option("--method", o.method,
                    "mean: the mean difference (llama.cpp's --method mean); pca: the prompts paired line by line, each layer's first "
                    "principal direction of the pairs' differences, norm 1 (llama.cpp's default)")
        ->check(CLI::IsMember({"mean", "pca"}))
        ->default_str("mean");
    return cmd;
}

int runCvector(const CvectorOptions& o) {
    checkOutputPath("--out", o.out, {o.model, o.positive, o.negative});
    const auto positive = readPromptsFile(o.positive);
    const auto negative = readPromptsFile(o.negative);
    const Model model = loadModelSource({ModelSource::Kind::Files, o.model}, {});
    const bool pca = o.method == "pca";
    if (pca && o.unit) throw std::invalid_argument("--unit applies to --method mean: a principal direction has norm 1 already");
    const MadeControlVector made = makeControlVector(model, positive, negative, o.unit, pca ? ControlVectorMethod::Pca : ControlVectorMethod::Mean);
    writeControlVectorFile(o.out, made.directions, "llama");
    fmt::print("{} positive and {} negative prompts; block outputs at each prompt's last position{}\n", positive.size(), negative.size(),
               pca ? "; each direction the first principal direction of the pairs' differences" : "");
    fmt::print("layer  tensor        direction norm  residual norm  ratio\n");
    for (const auto& l : made.layers)
        fmt::print("{:>5}  direction.{:<3} {:>14.4g} {:>14.4g} {:>5.1f}%\n", l.layer, l.layer - 1, l.directionNorm, l.residualNorm,
                   l.residualNorm > 0 ? 100.0 * l.directionNorm / l.residualNorm : 0.0);
    fmt::print("Layer 1 has no direction: llama.cpp's files start at direction.1{}\n", o.unit || pca ? "; each direction written with norm 1" : "");
    fmt::print("Wrote {}: use it with --control-vector {}:SCALE\n", o.out, o.out);
    return 0;
}

}  // namespace llama::cli
