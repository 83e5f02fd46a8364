// The engine's backward pass against central finite differences of an independent forward pass
// written here in F64 (plain loops, Meta's model.py step by step), on the tiny model of
// tests/fixtures/train: every weight of every layer type (embedding, RMSNorm, the linear layers,
// RoPE and GQA attention through the matrices before them, SwiGLU, the output projection and the
// cross-entropy) has its gradient checked at 16 elements, and each backward op on its own.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>

#include "ml/backward_ops.h"
#include "ml/ops.h"
#include "model/rope.h"
#include "train/lora_finetune.h"
#include "train_fixture.h"

using namespace llama;
using namespace train_test;

namespace {

using Vec = std::vector<double>;

struct Reference {
    ModelArgs a;
    std::map<std::string, Vec> w;

    explicit Reference(const Model& m) : a(m.args) {
        for (const auto& [name, t] : m.tensors) {
            Vec v(size_t(t.numel()));
            for (int64_t i = 0; i < t.numel(); ++i) v[size_t(i)] = t.floatAt(i);
            w[name] = std::move(v);
        }
    }
    const Vec& W(const std::string& name) const { return w.at(name); }

    // y[s][o] = sum_i x[s][i] * W[o][i]
    static Vec linear(const Vec& x, int S, int in, const Vec& W, int out) {
        Vec y(size_t(S * out), 0.0);
        for (int s = 0; s < S; ++s)
            for (int o = 0; o < out; ++o)
                for (int i = 0; i < in; ++i) y[size_t(s * out + o)] += x[size_t(s * in + i)] * W[size_t(o * in + i)];
        return y;
    }
    Vec rmsNorm(const Vec& x, int S, const Vec& weight) const {
        const int D = a.dim;
        Vec y(x.size());
        for (int s = 0; s < S; ++s) {
            double squares = 0;
            for (int i = 0; i < D; ++i) squares += x[size_t(s * D + i)] * x[size_t(s * D + i)];
            const double r = 1.0 / std::sqrt(squares / D + a.norm_eps);
            for (int i = 0; i < D; ++i) y[size_t(s * D + i)] = x[size_t(s * D + i)] * r * weight[size_t(i)];
        }
        return y;
    }
    // Each head's consecutive pairs rotated by position * theta^(-2i/HeadDim).
    void rope(Vec& x, int S, int heads) const {
        const int hd = a.headDim();
        for (int s = 0; s < S; ++s)
            for (int h = 0; h < heads; ++h)
                for (int i = 0; i < hd / 2; ++i) {
                    const double angle = s * std::pow(a.rope_theta, -2.0 * i / hd), c = std::cos(angle), sn = std::sin(angle);
                    double& x0 = x[size_t((s * heads + h) * hd + 2 * i)];
                    double& x1 = x[size_t((s * heads + h) * hd + 2 * i + 1)];
                    const double r0 = x0 * c - x1 * sn, r1 = x0 * sn + x1 * c;
                    x0 = r0, x1 = r1;
                }
    }
    Vec attention(const Vec& x, int S, int layer) const {
        const int H = a.n_heads, KVH = a.n_kv_heads, hd = a.headDim(), D = a.dim;
        auto name = [&](const char* s) { return "layers." + std::to_string(layer) + "." + s; };
        Vec q = linear(x, S, D, W(name("attention.wq.weight")), H * hd);
        Vec k = linear(x, S, D, W(name("attention.wk.weight")), KVH * hd);
        const Vec v = linear(x, S, D, W(name("attention.wv.weight")), KVH * hd);
        rope(q, S, H);
        rope(k, S, KVH);
        Vec heads(size_t(S * H * hd), 0.0);
        for (int h = 0; h < H; ++h) {
            const int kv = h / (H / KVH);
            for (int t = 0; t < S; ++t) {
                Vec p(size_t(t + 1));
                double max = -1e300, sum = 0;
                for (int s = 0; s <= t; ++s) {
                    double dot = 0;
                    for (int i = 0; i < hd; ++i) dot += q[size_t((t * H + h) * hd + i)] * k[size_t((s * KVH + kv) * hd + i)];
                    p[size_t(s)] = dot / std::sqrt(double(hd));
                    max = std::max(max, p[size_t(s)]);
                }
                for (double& e : p) sum += (e = std::exp(e - max));
                for (int s = 0; s <= t; ++s)
                    for (int i = 0; i < hd; ++i) heads[size_t((t * H + h) * hd + i)] += p[size_t(s)] / sum * v[size_t((s * KVH + kv) * hd + i)];
            }
        }
        return linear(heads, S, H * hd, W(name("attention.wo.weight")), D);
    }
    Vec feedForward(const Vec& x, int S, int layer) const {
        const int D = a.dim, F = a.ffnHiddenDim();
        auto name = [&](const char* s) { return "layers." + std::to_string(layer) + "." + s; };
        Vec gate = linear(x, S, D, W(name("feed_forward.w1.weight")), F);
        const Vec up = linear(x, S, D, W(name("feed_forward.w3.weight")), F);
        for (size_t i = 0; i < gate.size(); ++i) gate[i] = gate[i] / (1 + std::exp(-gate[i])) * up[i];
        return linear(gate, S, F, W(name("feed_forward.w2.weight")), D);
    }
    double windowLoss(const std::vector<int32_t>& inputs, const std::vector<int32_t>& targets) const {
        const int S = int(inputs.size()), D = a.dim, V = a.vocab_size;
        Vec x(size_t(S * D));
        for (int s = 0; s < S; ++s)
            for (int i = 0; i < D; ++i) x[size_t(s * D + i)] = W("tok_embeddings.weight")[size_t(inputs[size_t(s)] * D + i)];
        for (int l = 0; l < a.n_layers; ++l) {
            const std::string p = "layers." + std::to_string(l) + ".";
            const Vec h = attention(rmsNorm(x, S, W(p + "attention_norm.weight")), S, l);
            for (size_t i = 0; i < x.size(); ++i) x[i] += h[i];
            const Vec f = feedForward(rmsNorm(x, S, W(p + "ffn_norm.weight")), S, l);
            for (size_t i = 0; i < x.size(); ++i) x[i] += f[i];
        }
        const Vec logits = linear(rmsNorm(x, S, W("norm.weight")), S, D, W("output.weight"), V);
        double loss = 0;
        for (int s = 0; s < S; ++s) {
            double max = -1e300, sum = 0;
            for (int v = 0; v < V; ++v) max = std::max(max, logits[size_t(s * V + v)]);
            for (int v = 0; v < V; ++v) sum += std::exp(logits[size_t(s * V + v)] - max);
            loss += max + std::log(sum) - logits[size_t(s * V + targets[size_t(s)])];
        }
        return loss / S;
    }
    double batchLoss(const std::vector<TrainingWindow>& b) const {
        double loss = 0;
        for (const TrainingWindow& w : b) loss += windowLoss(w.inputs, w.targets);
        return loss / double(b.size());
    }
};

// Central difference of f at x[i] (F64); x is restored.
double centralDifference(Vec& x, size_t i, const std::function<double()>& f, double h = 1e-5) {
    const double keep = x[i];
    x[i] = keep + h;
    const double up = f();
    x[i] = keep - h;
    const double down = f();
    x[i] = keep;
    return (up - down) / (2 * h);
}

// Checks `analytic` (the engine's F32 gradient) against finite differences at `count` spread
// elements, relative to the largest of them (an F32 gradient carries about 1e-6 of its scale).
void checkAgainstDifferences(const Tensor& analytic, Vec& x, const std::function<double()>& f, int count) {
    std::vector<std::pair<double, double>> pairs;
    double scale = 0;
    for (int k = 0; k < count; ++k) {
        const size_t i = (size_t(k) * 7919 + 13) % x.size();
        pairs.push_back({analytic.floatAt(int64_t(i)), centralDifference(x, i, f)});
        scale = std::max(scale, std::abs(pairs.back().second));
    }
    REQUIRE(scale > 0);
    for (const auto& [ours, difference] : pairs) CHECK(std::abs(ours - difference) <= 1e-4 * scale);
}

Tensor f32(const Vec& v, const Shape& shape) {
    Tensor t(shape, DType::F32);
    std::transform(v.begin(), v.end(), t.mutableData<float>(), [](double d) { return float(d); });
    return t;
}
Vec randomVec(size_t n, uint32_t seed, double scale = 1.0) {
    std::mt19937 g(seed);
    Vec v(n);
    for (double& x : v) x = (double(g()) / 4294967296.0 * 2 - 1) * scale;
    return v;
}

}  // namespace

TEST_CASE("backward pass: every weight's gradient matches finite differences of an F64 forward pass", "[train]") {
    const Model model = tinyModel();
    const std::vector<TrainingWindow> batch = tinyBatch();
    Gradients grads(model);
    const double loss = trainOnBatch(model, batch, grads);
    Reference reference(model);
    CHECK(reference.batchLoss(batch) == Approx(loss).epsilon(1e-5));  // the two forward passes agree first
    for (const auto& e : grads.entries()) {
        INFO(e.name);
        checkAgainstDifferences(e.gradient, reference.w[e.name], [&] { return reference.batchLoss(batch); }, 16);
    }
}

TEST_CASE("LoRA: A's and B's gradients match finite differences of an F64 forward pass with W + scale * B * A", "[train][lora]") {
    Model model = tinyModel();
    LoraAdapter adapter = newLoraAdapter(model, 2, 3.0f, parseLoraTargets("wq,wk,wv,wo,w1,w2,w3"), 5);
    // B starts at zero, where A's gradient is zero too: B gets values, so that both are checked.
    uint32_t seed = 10;
    for (auto& [name, pair] : adapter.pairs) {
        const Vec b = randomVec(size_t(pair.B.numel()), seed++, 0.3);
        std::transform(b.begin(), b.end(), pair.B.mutableData<float>(), [](double d) { return float(d); });
    }
    model.adapters.push_back(adapter);
    const auto batch = tinyBatch();
    Gradients grads(model);
    REQUIRE(grads.entries().size() == 2 * 7 * size_t(model.args.n_layers));
    const double loss = trainOnBatch(model, batch, grads);
    CHECK(grads.of(model.tensors.front().second).rank() == 0);  // the model's own weights are frozen: no gradient

    // The reference folds each pair into its weight, W + scale * B * A, and runs the F64 forward pass.
    const Reference base(model);
    std::map<std::string, Vec> values;  // "<W>.lora_a" / "<W>.lora_b" -> A or B
    for (const auto& [name, pair] : adapter.pairs)
        for (const auto& [suffix, t] : {std::pair{".lora_a", pair.A}, std::pair{".lora_b", pair.B}}) {
            Vec& v = values[name + suffix];
            for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.floatAt(i));
        }
    auto lossWithAdapter = [&] {
        Reference folded = base;
        for (const auto& [name, pair] : adapter.pairs) {
            const int64_t out = pair.B.dim(0), in = pair.A.dim(1), rank = pair.A.dim(0);
            const Vec &a = values[name + ".lora_a"], &b = values[name + ".lora_b"];
            Vec& w = folded.w[name];
            for (int64_t o = 0; o < out; ++o)
                for (int64_t i = 0; i < in; ++i)
                    for (int64_t k = 0; k < rank; ++k) w[size_t(o * in + i)] += adapter.scaleOf(pair) * b[size_t(o * rank + k)] * a[size_t(k * in + i)];
        }
        return folded.batchLoss(batch);
    };
    CHECK(lossWithAdapter() == Approx(loss).epsilon(1e-5));  // the two forward passes agree first
    for (const auto& e : grads.entries()) {
        INFO(e.name);
        checkAgainstDifferences(e.gradient, values.at(e.name), lossWithAdapter, 8);
    }
}

TEST_CASE("backward ops: each against finite differences of its own F64 forward", "[train]") {
    const int rows = 3, n = 7;
    const Vec y0 = randomVec(rows * n, 1), w0 = randomVec(n, 2, 0.5), dy0 = randomVec(rows * n, 3);
    // A scalar of each op's output: sum(dy * op(x)), whose gradient is the op's backward of dy.
    auto weighted = [&](const Vec& out) {
        double s = 0;
        for (size_t i = 0; i < out.size(); ++i) s += out[i] * dy0[i];
        return s;
    };
    const Tensor dy = f32(dy0, {rows, n});

    SECTION("softmax, with a masked entry") {
        Vec x = y0;
        x[2] = -INFINITY;  // masked: no gradient
        auto softmax = [&] {
            Vec out(x.size());
            for (int r = 0; r < rows; ++r) {
                double max = -1e300, sum = 0;
                for (int i = 0; i < n; ++i) max = std::max(max, x[size_t(r * n + i)]);
                for (int i = 0; i < n; ++i) sum += out[size_t(r * n + i)] = std::exp(x[size_t(r * n + i)] - max);
                for (int i = 0; i < n; ++i) out[size_t(r * n + i)] /= sum;
            }
            return out;
        };
        const Tensor dx = ml::SoftmaxBackward(ml::Softmax(f32(x, {rows, n}), 1), dy);
        CHECK(dx.floatAt(2) == 0.0f);
        x[2] = 0.3;  // finite while the others are moved; masked again inside f
        auto f = [&] {
            Vec keep = x;
            x[2] = -INFINITY;
            const double s = weighted(softmax());
            x = keep;
            return s;
        };
        checkAgainstDifferences(dx, x, f, 12);
    }
    SECTION("RMSNorm: the input and the weights") {
        Vec x = y0, w = w0;
        auto norm = [&] {
            Vec out(x.size());
            for (int r = 0; r < rows; ++r) {
                double sq = 0;
                for (int i = 0; i < n; ++i) sq += x[size_t(r * n + i)] * x[size_t(r * n + i)];
                for (int i = 0; i < n; ++i) out[size_t(r * n + i)] = x[size_t(r * n + i)] / std::sqrt(sq / n + 1e-5) * w[size_t(i)];
            }
            return weighted(out);
        };
        const ml::RMSNormGradients g = ml::RMSNormBackward(f32(x, {rows, n}), f32(w, {n}), dy, 1e-5f);
        checkAgainstDifferences(g.dx, x, norm, 12);
        checkAgainstDifferences(g.dWeight, w, norm, n);
    }
    SECTION("SiLU") {
        Vec x = y0;
        auto silu = [&] {
            Vec out(x.size());
            for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] / (1 + std::exp(-x[i]));
            return weighted(out);
        };
        checkAgainstDifferences(ml::SiluBackward(f32(x, {rows, n}), dy), x, silu, 12);
    }
    SECTION("cross-entropy, with an unscored row") {
        Vec x = y0;
        const std::vector<int32_t> targets = {4, -1, 0};
        auto crossEntropy = [&] {
            double loss = 0;
            for (int r : {0, 2}) {
                double max = -1e300, sum = 0;
                for (int i = 0; i < n; ++i) max = std::max(max, x[size_t(r * n + i)]);
                for (int i = 0; i < n; ++i) sum += std::exp(x[size_t(r * n + i)] - max);
                loss += max + std::log(sum) - x[size_t(r * n + targets[size_t(r)])];
            }
            return loss / 2;
        };
        const ml::CrossEntropyResult ce = ml::CrossEntropy(f32(x, {rows, n}), Tensor::fromInt32(targets));
        CHECK(ce.scored == 2);
        CHECK(ce.loss == Approx(crossEntropy()).epsilon(1e-6));
        for (int i = 0; i < n; ++i) CHECK(ce.dLogits.floatAt(n + i) == 0.0f);
        checkAgainstDifferences(ce.dLogits, x, crossEntropy, 14);
    }
    SECTION("RoPE: the backward of a rotation is the conjugate rotation") {
        const int S = 3, heads = 2, hd = 4;
        Vec x = randomVec(S * heads * hd, 4);
        const Vec d = randomVec(S * heads * hd, 5);
        const Tensor freqs = precomputeFreqsCis(hd, S, 10000.0, false);
        auto rotated = [&] {
            const Tensor r = applyRotaryEmbedding(f32(x, {S, heads, hd}), freqs);
            double s = 0;
            for (int64_t i = 0; i < r.numel(); ++i) s += double(r.floatAt(i)) * d[size_t(i)];
            return s;
        };
        // The rotation is linear, so F32 differences of the engine's own forward are exact enough.
        const Tensor dx = applyRotaryEmbeddingBackward(f32(d, {S, heads, hd}), freqs);
        for (int k = 0; k < 8; ++k) {
            const size_t i = size_t(k) * 3 % x.size();
            CHECK(dx.floatAt(int64_t(i)) == Approx(centralDifference(x, i, rotated, 1e-2)).margin(1e-4));
        }
    }
    SECTION("repeatKV: a KV head's gradient is the sum of its query heads'") {
        const Tensor a = f32(randomVec(6 * 2, 6), {6, 2});
        const Tensor summed = ml::SumRepeated(a, 0, 3);
        REQUIRE(summed.shape() == Shape{2, 2});
        CHECK(summed.floatAt(0) == Approx(a.floatAt(0) + a.floatAt(2) + a.floatAt(4)));
        CHECK(summed.floatAt(3) == Approx(a.floatAt(7) + a.floatAt(9) + a.floatAt(11)));
    }
}
