#include "cvector_command.h"

#include <fmt/format.h>

#include "formats/gguf/gguf_control_vector.h"
#include "io/atomic_output.h"
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
    return cmd;
}

int runCvector(const CvectorOptions& o) {
    checkOutputPath("--out", o.out, {o.model, o.positive, o.negative});
    const auto positive = readPromptLines(o.positive);
    const auto negative = readPromptLines(o.negative);
    const Model model = loadModelSource({ModelSource::Kind::Files, o.model}, {});
    const MadeControlVector made = makeControlVector(model, positive, negative, o.unit);
    writeControlVectorFile(o.out, made.directions, "llama");
    fmt::print("{} positive and {} negative prompts; block outputs at each prompt's last position\n", positive.size(), negative.size());
    fmt::print("layer  tensor        direction norm  residual norm  ratio\n");
    for (const auto& l : made.layers)
        fmt::print("{:>5}  direction.{:<3} {:>14.4g} {:>14.4g} {:>5.1f}%\n", l.layer, l.layer - 1, l.directionNorm, l.residualNorm,
                   l.residualNorm > 0 ? 100.0 * l.directionNorm / l.residualNorm : 0.0);
    fmt::print("Layer 1 has no direction: llama.cpp's files start at direction.1{}\n", o.unit ? "; each direction written with norm 1" : "");
    fmt::print("Wrote {}: use it with --control-vector {}:SCALE\n", o.out, o.out);
    return 0;
}

}  // namespace llama::cli
