#include "steer/control_vector_maker.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "generate/chat_template.h"
#include "model/llama_transformer.h"
#include "steer/layer_capture.h"

namespace llama {

namespace {
// Per prompt, per layer, the block output at the prompt's last position.
using LastRows = std::vector<std::vector<std::vector<float>>>;  // [prompt][layer][dim]

LastRows lastRows(const Model& model, const LlamaTransformer& transformer, const std::vector<std::string>& prompts) {
    const int layers = model.args.n_layers;
    LastRows rows;
    for (const auto& text : prompts) {
        const auto tokens = formatPrompt(PromptMode::Completion, "", text, chatFormatFor(*model.tokenizer), false).encode(*model.tokenizer);
        if (int(tokens.size()) >= model.args.max_seq_len)
            throw std::invalid_argument(fmt::format("the prompt \"{}\" has {} tokens: more than the context of {}", text, tokens.size(), model.args.max_seq_len));
        InferenceContext ctx(model.args);
        LayerCapture capture(StageId::FfnResidual, "output", layers);
        ctx.addObserver(&capture);
        transformer.Forward(ctx, Tensor::fromInt32(tokens), 0);
        auto& prompt = rows.emplace_back();
        for (int l = 0; l < layers; ++l) {
            const auto row = capture.row(l, int(tokens.size()) - 1);
            prompt.emplace_back(row.begin(), row.end());
        }
    }
    return rows;
}

// "a", "b" and 3 more: which prompts a message is about.
std::string quoted(const std::vector<std::string>& prompts) {
    std::string s;
    for (size_t i = 0; i < prompts.size() && i < 2; ++i) s += fmt::format("{}{:?}", i ? ", " : "", prompts[i]);
    return prompts.size() > 2 ? fmt::format("{} and {} more", s, prompts.size() - 2) : s;
}

template <class Values>  // floats (block outputs) or doubles (directions)
double norm(const Values& v) {
    double sum = 0;
    for (double x : v) sum += x * x;
    return std::sqrt(sum);
}

}  // namespace

std::vector<double> firstPrincipalDirection(const std::vector<std::vector<double>>& diffs, std::vector<double> v) {
    const double startNorm = norm(v);
    if (startNorm == 0) return v;
    for (double& x : v) x /= startNorm;
    const std::vector<double> start = v;
    for (int iteration = 0; iteration < 1000; ++iteration) {
        std::vector<double> next(v.size(), 0.0);
        for (const auto& d : diffs) {
            double projection = 0;  // (D v) for this row
            for (size_t i = 0; i < v.size(); ++i) projection += d[i] * v[i];
            for (size_t i = 0; i < v.size(); ++i) next[i] += d[i] * projection;
        }
        const double n = norm(next);
        if (n == 0) break;
        double moved = 0;
        for (size_t i = 0; i < v.size(); ++i) {
            next[i] /= n;
            moved += (next[i] - v[i]) * (next[i] - v[i]);
        }
        v = std::move(next);
        if (std::sqrt(moved) < 1e-7) break;
    }
    double alongStart = 0;
    for (size_t i = 0; i < v.size(); ++i) alongStart += v[i] * start[i];
    if (alongStart < 0)
        for (double& x : v) x = -x;
    return v;
}
MadeControlVector makeControlVector(const Model& model, const std::vector<std::string>& positive, const std::vector<std::string>& negative,
                                    bool unit, ControlVectorMethod method) {
    if (positive.empty() || negative.empty()) throw std::invalid_argument("a control vector needs at least one positive and one negative prompt");
    if (method == ControlVectorMethod::Pca && positive.size() != negative.size())
        throw std::invalid_argument(fmt::format("--method pca pairs the prompt files line by line, as llama.cpp's generator does: {} positive "
                                                "and {} negative prompts are not pairs",
                                                positive.size(), negative.size()));
    const LlamaTransformer transformer(model);
    const LastRows pos = lastRows(model, transformer, positive);
    const LastRows neg = lastRows(model, transformer, negative);
    const size_t dim = size_t(model.args.dim);
    MadeControlVector made;
    for (int block = 1; block < model.args.n_layers; ++block) {  // block 0 is never steered (no direction.0)
        const size_t l = size_t(block);
        std::vector<double> mean(dim, 0.0);
        double residualNorms = 0;
        for (const auto& p : pos) {
            for (size_t i = 0; i < dim; ++i) mean[i] += p[l][i] / double(pos.size());
            residualNorms += norm(p[l]);
        }
        for (const auto& n : neg) {
            for (size_t i = 0; i < dim; ++i) mean[i] -= n[l][i] / double(neg.size());
            residualNorms += norm(n[l]);
        }
        const double meanNorm = norm(mean);
        // A zero direction steers nothing and has no norm 1 to scale to (nor a principal direction to start from).
        if (meanNorm == 0)
            throw std::invalid_argument(fmt::format("layer {}: the positive prompts ({}) and the negative prompts ({}) give the same block output "
                                                    "at their last positions, so the direction is zero: give prompts that differ in what "
                                                    "the control vector should steer",
                                                    block + 1, quoted(positive), quoted(negative)));
        std::vector<double> direction = mean;
        if (method == ControlVectorMethod::Pca) {
            std::vector<std::vector<double>> diffs(pos.size(), std::vector<double>(dim));
            for (size_t p = 0; p < pos.size(); ++p)
                for (size_t i = 0; i < dim; ++i) diffs[p][i] = double(pos[p][l][i]) - neg[p][l][i];
            direction = firstPrincipalDirection(diffs, mean);
        } else if (unit) {
            for (double& x : direction) x /= meanNorm;
        }
        made.directions.emplace(block, std::vector<float>(direction.begin(), direction.end()));
        made.layers.push_back({block + 1, meanNorm, residualNorms / double(pos.size() + neg.size())});
    }
    return made;
}

}  // namespace llama
