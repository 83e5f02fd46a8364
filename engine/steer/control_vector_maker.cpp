#include "steer/control_vector_maker.h"

#include <fmt/format.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "generate/chat_template.h"
#include "io/input_file.h"
#include "model/llama_transformer.h"
#include "steer/layer_capture.h"

namespace llama {

namespace {
// Per layer, the sum of the block outputs at the last position of each prompt.
std::vector<std::vector<double>> sumOfLastRows(const Model& model, const LlamaTransformer& transformer, const std::vector<std::string>& prompts,
                                               std::vector<double>& residualNormSum) {
    const int layers = model.args.n_layers;
    std::vector<std::vector<double>> sum(size_t(layers), std::vector<double>(size_t(model.args.dim), 0.0));
    for (const auto& text : prompts) {
        const auto tokens = formatPrompt(PromptMode::Completion, "", text, chatFormatFor(*model.tokenizer), false).encode(*model.tokenizer);
        if (int(tokens.size()) >= model.args.max_seq_len)
            throw std::invalid_argument(fmt::format("the prompt \"{}\" has {} tokens: more than the context of {}", text, tokens.size(), model.args.max_seq_len));
        InferenceContext ctx(model.args);
        LayerCapture capture(StageId::FfnResidual, "output", layers);
        ctx.addObserver(&capture);
        transformer.Forward(ctx, Tensor::fromInt32(tokens), 0);
        for (int l = 0; l < layers; ++l) {
            const auto row = capture.row(l, int(tokens.size()) - 1);
            double norm = 0;
            for (size_t i = 0; i < row.size(); ++i) {
                sum[size_t(l)][i] += row[i];
                norm += double(row[i]) * row[i];
            }
            residualNormSum[size_t(l)] += std::sqrt(norm);
        }
    }
    return sum;
}
}  // namespace

MadeControlVector makeControlVector(const Model& model, const std::vector<std::string>& positive, const std::vector<std::string>& negative,
                                    bool unit) {
    if (positive.empty() || negative.empty()) throw std::invalid_argument("a control vector needs at least one positive and one negative prompt");
    const LlamaTransformer transformer(model);
    std::vector<double> residualNorms(size_t(model.args.n_layers), 0.0);
    const auto pos = sumOfLastRows(model, transformer, positive, residualNorms);
    const auto neg = sumOfLastRows(model, transformer, negative, residualNorms);
    MadeControlVector made;
    for (int block = 1; block < model.args.n_layers; ++block) {  // block 0 is never steered (no direction.0)
        std::vector<float> d(size_t(model.args.dim));
        double norm = 0;
        for (size_t i = 0; i < d.size(); ++i) {
            const double v = pos[size_t(block)][i] / double(positive.size()) - neg[size_t(block)][i] / double(negative.size());
            d[i] = float(v);
            norm += v * v;
        }
        norm = std::sqrt(norm);
        if (unit && norm > 0)
            for (float& x : d) x = float(x / norm);
        made.directions.emplace(block, std::move(d));
        made.layers.push_back({block + 1, norm, residualNorms[size_t(block)] / double(positive.size() + negative.size())});
    }
    return made;
}

std::vector<std::string> readPromptLines(const std::string& path) {
    std::istringstream in(readInputFile(path, "prompt file"));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") != std::string::npos) lines.push_back(line);
    }
    if (lines.empty()) throw std::invalid_argument(fmt::format("{}: no prompts (one prompt a line)", path));
    return lines;
}

}  // namespace llama
