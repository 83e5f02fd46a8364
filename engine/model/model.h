#pragma once
// A loaded model: its args, its named weights (views into the file where possible) and its
// tokenizer. The loaders in engine/formats fill it; LlamaTransformer reads from it.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/lora.h"
#include "model/model_args.h"
#include "tensor/tensor.h"
#include "tokenizer/tokenizer.h"

namespace llama {

struct Model {
    ModelArgs args;
    std::string format;  // e.g. "Meta consolidated.00.pth", "synthetic preset 'tiny'"
    std::string path;
    bool randomWeights = false;  // synthetic: text will be gibberish
    std::vector<std::pair<std::string, Tensor>> tensors;  // in file order
    std::shared_ptr<const Tokenizer> tokenizer;
    // tokenizer_config.json's Jinja chat template, verbatim, when the model came with one
    // (shown by `inspect`; the prompt itself is built by generate/chat_template.h).
    std::string chatTemplate;
    // LoRA adapters added to the blocks' matrices (--lora; model/lora.h), in the order given.
    std::vector<LoraAdapter> adapters;

    // The weight called `name` with the expected shape; a clear error otherwise.
    const Tensor& tensor(const std::string& name, const Shape& expected) const;
    size_t totalBytes() const;
    // The dtype most weights have ("BF16"), or "mixed".
    std::string weightsDType() const;
    // Throws naming the tensor: a weight of a layer the args do not have (a GGUF block_count of 1
    // with tensors for 2 blocks would silently run one layer), or a NaN or infinity in a weight or
    // in a quantized block's scale (text generated from NaN logits would pass for a run).
    void checkWeights() const;
};

}  // namespace llama
