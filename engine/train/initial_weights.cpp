#include "train/initial_weights.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "ml/ops.h"
#include "model/portable_math.h"
#include "model/synthetic.h"

namespace llama {

namespace {

// Box-Muller with the portable log and cosine (model/portable_math.h): the same bits everywhere.
void fillNormal(Tensor& t, uint64_t seed, double std) {
    float* out = t.mutableData<float>();
    uint64_t s = seed;
    for (int64_t i = 0; i < t.numel(); i += 2) {
        const double u1 = (double(splitmix64(s) >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
        const double u2 = double(splitmix64(s) >> 11) * 0x1.0p-53;
        const double radius = std::sqrt(-2.0 * portable::log(u1));
        double c, sn;
        portable::cosSin(2.0 * 3.14159265358979323846 * u2, c, sn);
        out[i] = float(std * radius * c);
        if (i + 1 < t.numel()) out[i + 1] = float(std * radius * sn);
    }
}

}  // namespace

Model initialModel(const ModelArgs& args, uint64_t seed, std::shared_ptr<const Tokenizer> tokenizer) {
    Model model;
    model.args = args;
    model.format = fmt::format("a model initialised for training (seed {})", seed);
    model.tokenizer = std::move(tokenizer);
    // The names and shapes every Llama has, in Meta's order.
    uint64_t stream = seed * 0x100000001b3ull;
    for (const auto& [name, shapeOnly] : syntheticWeights(args, 0, true)) {
        Tensor t(shapeOnly.shape(), DType::F32);
        if (t.rank() == 1) {
            std::fill_n(t.mutableData<float>(), t.numel(), 1.0f);
        } else {
            const bool residual = name.ends_with("attention.wo.weight") || name.ends_with("feed_forward.w2.weight");
            fillNormal(t, stream, residual ? 0.02 / std::sqrt(2.0 * args.n_layers) : 0.02);
        }
        ++stream;
        model.tensors.emplace_back(name, std::move(t));
    }
    return model;
}

Model trainableModel(const Model& source, int maxSeqLen) {
    Model model;
    model.args = source.args;
    model.args.max_seq_len = maxSeqLen;
    model.format = fmt::format("{} ({}), as F32 to train", source.path, source.format);
    model.tokenizer = source.tokenizer;
    for (const auto& [name, shapeOnly] : syntheticWeights(model.args, 0, true)) {
        const Tensor& weight = source.tensor(name, shapeOnly.shape());
        if (weight.dtype() != DType::F32 && weight.dtype() != DType::BF16)
            throw std::invalid_argument(fmt::format("'{}' holds {} as {}: training starts from F32 or BF16 weights (convert the model first)",
                                                    source.path, name, dtypeName(weight.dtype())));
        model.tensors.emplace_back(name, ml::ToFloat32(weight));
    }
    return model;
}

}  // namespace llama
