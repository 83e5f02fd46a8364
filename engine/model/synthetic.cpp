#include "model/synthetic.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "ml/thread_pool.h"
#include "tokenizer/spm_scores_tokenizer.h"
#include "tokenizer/tiktoken_tokenizer.h"

namespace llama {

namespace {
struct Preset {
    const char* name;
    ModelArgs args;
    TokenizerFamily family;
};

ModelArgs makeArgs(int dim, int layers, int heads, int kvHeads, int vocab, int multipleOf, std::optional<double> multiplier,
                   double theta, bool scaled) {
    ModelArgs a;
    a.dim = dim;
    a.n_layers = layers;
    a.n_heads = heads;
    a.n_kv_heads = kvHeads;
    a.vocab_size = vocab;
    a.multiple_of = multipleOf;
    a.ffn_dim_multiplier = multiplier;
    a.norm_eps = 1e-5;
    a.rope_theta = theta;
    a.use_scaled_rope = scaled;
    return a;
}

const std::vector<Preset>& presets() {
    static const std::vector<Preset> p = {
        {"tiny", makeArgs(64, 2, 4, 2, 768, 32, std::nullopt, 10000.0, false), TokenizerFamily::Llama3},
        {"tinyllama-1.1b", makeArgs(2048, 22, 32, 4, 32000, 256, std::nullopt, 10000.0, false), TokenizerFamily::Llama2},
        {"llama3.1-8b", makeArgs(4096, 32, 32, 8, 128256, 1024, 1.3, 500000.0, true), TokenizerFamily::Llama3},
        {"llama2-7b", makeArgs(4096, 32, 32, 32, 32000, 256, std::nullopt, 10000.0, false), TokenizerFamily::Llama2},
    };
    return p;
}


// Uniform in [-scale, scale), or all `scale` when constant.
Tensor randomTensor(const Shape& shape, uint64_t seed, float scale, bool constant, bool shapesOnly) {
    if (shapesOnly) return Tensor::shapeOnly(shape, DType::BF16);
    Tensor t(shape, DType::BF16);
    auto* out = t.mutableData<BFloat16>();
    const int64_t chunk = 1 << 16;
    const int64_t n = t.numel();
    ml::ThreadPool::global().parallelFor((n + chunk - 1) / chunk, [&](int64_t begin, int64_t end) {
        for (int64_t c = begin; c < end; ++c) {
            uint64_t s = seed * 0x100000001b3ull + uint64_t(c);  // seeded per chunk: the same weights whatever the threads
            for (int64_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) {
                float u = float(splitmix64(s) >> 40) * 0x1.0p-24f;  // [0, 1)
                out[i] = BFloat16(constant ? scale : (2 * u - 1) * scale);
            }
        }
    });
    return t;
}

const Preset& presetNamed(const std::string& preset) {
    for (const auto& p : presets())
        if (preset == p.name) return p;
    throw std::invalid_argument(fmt::format("unknown synthetic preset '{}'; known presets: {}", preset, fmt::join(syntheticPresets(), ", ")));
}
}  // namespace

// Llama 3: the 256 bytes, the fillers, then Llama 3's special tokens (chat: Llama 3's headers).
// Llama 2: <unk> <s> </s>, then <0x00>..<0xFF> at ids 3..258 as in Llama 2's SentencePiece
// model, "▁" (a space) at 259, then the fillers (chat: Llama 2's [INST], as there is no
// <|start_header_id|>).
std::shared_ptr<const Tokenizer> syntheticByteTokenizer(int vocabSize, TokenizerFamily family) {
    if (family == TokenizerFamily::Llama3) {
        const auto specials = TiktokenTokenizer::llama3SpecialTokens();
        std::vector<std::string> ranks;
        for (int b = 0; b < 256; ++b) ranks.push_back(std::string(1, char(b)));
        while (int(ranks.size() + specials.size()) < vocabSize) ranks.push_back(fmt::format("[{}]", ranks.size()));
        return std::make_shared<TiktokenTokenizer>(std::move(ranks), specials);
    }
    using T = SpmScoresTokenizer;
    std::vector<std::string> pieces{"<unk>", "<s>", "</s>"};
    std::vector<int32_t> types{T::Unknown, T::Control, T::Control};
    for (int b = 0; b < 256; ++b) pieces.push_back(fmt::format("<0x{:02X}>", b)), types.push_back(T::Byte);
    pieces.push_back("\u2581"), types.push_back(T::Normal);  // "▁", SentencePiece's space: one token, not its three bytes
    while (int(pieces.size()) < vocabSize) pieces.push_back(fmt::format("[{}]", pieces.size())), types.push_back(T::Unused);
    std::vector<float> scores(pieces.size(), 0.0f);
    // No space prefix: the text's bytes and nothing else, as the Llama 3 byte tokenizer does.
    return std::make_shared<T>(std::move(pieces), std::move(scores), std::move(types), 1, std::vector<int32_t>{2}, false);
}

std::vector<std::string> syntheticPresets() {
    std::vector<std::string> names;
    for (const auto& p : presets()) names.push_back(p.name);
    return names;
}

ModelArgs syntheticArgs(const std::string& preset) { return presetNamed(preset).args; }

std::vector<std::pair<std::string, Tensor>> syntheticWeights(const ModelArgs& a, uint64_t seed, bool shapesOnly) {
    std::vector<std::pair<std::string, Tensor>> tensors;
    const int64_t dim = a.dim, hd = a.headDim(), ffn = a.ffnHiddenDim();
    uint64_t next = seed;
    // Scale 1/sqrt(fan_in) keeps activations of order one through the layers.
    auto linear = [&](const std::string& name, Shape shape) {
        float scale = 1.0f / std::sqrt(float(shape[1]));
        tensors.emplace_back(name, randomTensor(shape, next++, scale, false, shapesOnly));
    };
    auto norm = [&](const std::string& name) { tensors.emplace_back(name, randomTensor({dim}, next++, 1.0f, true, shapesOnly)); };

    tensors.emplace_back("tok_embeddings.weight", randomTensor({a.vocab_size, dim}, next++, 1.0f, false, shapesOnly));
    for (int l = 0; l < a.n_layers; ++l) {
        auto name = [&](const char* s) { return fmt::format("layers.{}.{}", l, s); };
        linear(name("attention.wq.weight"), {a.n_heads * hd, dim});
        linear(name("attention.wk.weight"), {a.n_kv_heads * hd, dim});
        linear(name("attention.wv.weight"), {a.n_kv_heads * hd, dim});
        linear(name("attention.wo.weight"), {dim, a.n_heads * hd});
        linear(name("feed_forward.w1.weight"), {ffn, dim});
        linear(name("feed_forward.w2.weight"), {dim, ffn});
        linear(name("feed_forward.w3.weight"), {ffn, dim});
        norm(name("attention_norm.weight"));
        norm(name("ffn_norm.weight"));
    }
    norm("norm.weight");
    linear("output.weight", {a.vocab_size, dim});
    return tensors;
}

Model makeSyntheticModel(const std::string& preset, uint64_t seed, bool shapesOnly, std::shared_ptr<const Tokenizer> tokenizer) {
    const Preset& p = presetNamed(preset);
    if (tokenizer && tokenizer->vocabSize() != p.args.vocab_size)
        throw std::logic_error(fmt::format("a tokenizer of {} tokens for preset '{}' ({})", tokenizer->vocabSize(), preset, p.args.vocab_size));
    Model m;
    m.args = p.args;
    m.format = fmt::format("synthetic preset '{}' (seeded random weights, seed {})", preset, seed);
    m.path = "synthetic:" + preset;
    m.randomWeights = true;
    m.tensors = syntheticWeights(m.args, seed, shapesOnly);
    m.tokenizer = tokenizer ? std::move(tokenizer) : syntheticByteTokenizer(m.args.vocab_size, p.family);
    return m;
}

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace llama
