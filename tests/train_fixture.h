#pragma once
// The tiny model and batch of tests/fixtures/train (made by make_train_golden.py with PyTorch):
// its weights loaded as writable F32 master weights, its two windows, and one engine training
// step over them, as the golden and the finite-difference tests both run it.
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "formats/meta/torch_checkpoint.h"
#include "model/inference_context.h"
#include "model/llama_transformer.h"
#include "model/model.h"
#include "model/forward_tape.h"
#include "model/gradients.h"
#include "train/training_step.h"

namespace train_test {

inline std::string trainFixture(const std::string& name) { return std::string(TEST_FIXTURES_DIR) + "/train/" + name; }

inline nlohmann::json stepJson() {
    std::ifstream in(trainFixture("step.json"));
    return nlohmann::json::parse(in);
}

inline llama::Model tinyModel() {
    const nlohmann::json golden = stepJson();
    const auto& c = golden["config"];
    llama::Model model;
    model.args.dim = c["dim"];
    model.args.n_layers = c["n_layers"];
    model.args.n_heads = c["n_heads"];
    model.args.n_kv_heads = c["n_kv_heads"];
    model.args.vocab_size = c["vocab_size"];
    model.args.multiple_of = c["multiple_of"];
    model.args.norm_eps = c["norm_eps"];
    model.args.rope_theta = c["rope_theta"];
    model.args.max_seq_len = golden["seq_len"];
    const llama::TorchCheckpoint checkpoint = llama::TorchCheckpoint::load(trainFixture("model.pth"));
    for (const auto& t : checkpoint.tensors()) model.tensors.emplace_back(t.name, t.tensor.clone());
    return model;
}

// The two windows of the golden step, every target scored.
inline std::vector<llama::TrainingWindow> tinyBatch() {
    std::vector<llama::TrainingWindow> batch;
    const nlohmann::json golden = stepJson();
    for (const auto& w : golden["windows"]) {
        std::vector<int32_t> window = w.get<std::vector<int32_t>>();
        batch.push_back({std::vector<int32_t>(window.begin(), window.end() - 1), std::vector<int32_t>(window.begin() + 1, window.end())});
    }
    return batch;
}

// The batch's mean loss over its scored tokens; grads hold its gradient.
inline double trainOnBatch(const llama::Model& model, const std::vector<llama::TrainingWindow>& batch, llama::Gradients& grads) {
    const llama::LlamaTransformer transformer(model);
    llama::InferenceContext ctx(model.args);
    llama::ForwardTape tape(model.args.n_layers);
    ctx.addObserver(&tape);
    return llama::trainOnBatch(transformer, ctx, tape, batch, grads);
}

}  // namespace train_test
