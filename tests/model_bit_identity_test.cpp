// The same numbers on every machine (docs/speed.md): a run gives the same bits, stage by stage,
// on every kernel path this CPU executes (generic, avx2, avx512 natively; generic and simd128 in
// the WebAssembly build), because every path computes one canonical arithmetic. Each run is a
// prefill and greedy decode steps; every tensor of every stage it marks is hashed, and the
// hashes must equal those of tests/fixtures/bit_identity/<model>.txt, which the native generic
// path made (make_goldens.sh beside them). A mismatch names the first stage that differs.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "formats/gguf/quantize.h"
#include "ml/kernels/kernel_set.h"
#include "ml/ops.h"
#include "ml_test_util.h"
#include "model/inference_context.h"
#include "model/llama_transformer.h"
#include "model/synthetic.h"
#include "session/model_source.h"
#include "stages/stage_catalog.h"

using namespace llama;
namespace fs = std::filesystem;

namespace {

const fs::path kGoldens = fs::path(TEST_FIXTURES_DIR) / "bit_identity";

// FNV-1a over a tensor's bytes: equal hashes for equal bits (and, in practice, only for them).
uint64_t hashBytes(const void* data, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

// "step/layer/stage/tensor" -> hash of the tensor's values. A map, not a list: the Q, K and V
// tasks mark their stages from their own threads, in no fixed order.
using StageHashes = std::map<std::string, uint64_t>;

class HashingObserver : public StageObserver {
public:
    StageHashes hashes;
    int step = 0;  // set by the caller: the bare Forward calls here do not count steps
    void onStage(const StageEvent& e) override {
        for (const StageTensor& t : e.tensors) {
            if (!t.tensor || !t.tensor->hasData()) continue;
            std::ostringstream key;
            key << step << '/' << e.layer << '/' << stageInfo(e.stage).key << '/' << t.name;
            hashes[key.str()] = hashBytes(t.tensor->rawData(), t.tensor->byteSize());
        }
    }
};

// A prefill of `prompt` and `steps` greedy decode steps; the logits of each step are hashed too.
StageHashes runHashed(const Model& model, const std::vector<int32_t>& prompt, int steps) {
    LlamaTransformer transformer(model);
    InferenceContext ctx(model.args);
    HashingObserver observer;
    ctx.addObserver(&observer);
    std::vector<int32_t> tokens = prompt;
    int pos = 0;
    for (int step = 0; step <= steps; ++step) {
        observer.step = step;
        const std::vector<int32_t> input = step == 0 ? tokens : std::vector<int32_t>{tokens.back()};
        Tensor logits = transformer.Forward(ctx, Tensor::fromInt32(input), pos);
        pos += int(input.size());
        Tensor last = ml::ToFloat32(ml::Reshape(ml::Slice(logits, logits.dim(0) - 1, logits.dim(0)), {logits.dim(-1)}));
        observer.hashes["logits/" + std::to_string(step)] = hashBytes(last.rawData(), last.byteSize());
        tokens.push_back(int32_t(ml::Argmax(last)));
    }
    return observer.hashes;
}

// The same run unobserved, each pass asking for the last row's logits only (as a generation
// does): only those rows are projected to the vocabulary, and their hashes must be the
// goldens' "logits/<step>", made from every row's projection.
StageHashes runLastRowsOnly(const Model& model, const std::vector<int32_t>& prompt, int steps) {
    LlamaTransformer transformer(model);
    InferenceContext ctx(model.args);
    StageHashes hashes;
    std::vector<int32_t> tokens = prompt;
    int pos = 0;
    for (int step = 0; step <= steps; ++step) {
        const std::vector<int32_t> input = step == 0 ? tokens : std::vector<int32_t>{tokens.back()};
        Tensor logits = transformer.Forward(ctx, Tensor::fromInt32(input), pos, LogitRows::Last);
        REQUIRE(logits.dim(0) == 1);
        pos += int(input.size());
        Tensor last = ml::ToFloat32(ml::Reshape(logits, {logits.dim(-1)}));
        hashes["logits/" + std::to_string(step)] = hashBytes(last.rawData(), last.byteSize());
        tokens.push_back(int32_t(ml::Argmax(last)));
    }
    return hashes;
}

StageHashes readGoldens(const fs::path& file) {
    StageHashes h;
    std::ifstream in(file);
    std::string key;
    uint64_t value;
    while (in >> key >> std::hex >> value) h[key] = value;
    return h;
}

void writeGoldens(const fs::path& file, const StageHashes& h) {
    std::ofstream out(file);
    for (const auto& [key, value] : h) out << key << ' ' << std::hex << value << '\n';
}

// The first key (in order) whose hash differs, or that one side lacks.
std::string firstDifference(const StageHashes& want, const StageHashes& got) {
    for (const auto& [key, value] : want) {
        auto it = got.find(key);
        if (it == got.end()) return key + " (missing)";
        if (it->second != value) return key;
    }
    for (const auto& [key, value] : got)
        if (!want.count(key)) return key + " (not in the goldens)";
    return "";
}

// Runs `model` on every kernel path against its goldens. LLAMA_BIT_IDENTITY_WRITE=1 (the goldens
// script) writes them instead, from the generic path.
void checkEveryPath(const std::string& name, const Model& model, const std::vector<int32_t>& prompt, int steps) {
    const fs::path file = kGoldens / (name + ".txt");
    if (const char* w = std::getenv("LLAMA_BIT_IDENTITY_WRITE"); w && std::string(w) == "1") {
        test::UsingKernels generic("generic");
        fs::create_directories(kGoldens);
        writeGoldens(file, runHashed(model, prompt, steps));
        return;
    }
    const StageHashes goldens = readGoldens(file);
    REQUIRE(goldens.size() > size_t(steps));  // the file exists and holds every step
    for (const std::string& path : ml::kernels::supportedPaths()) {
        test::UsingKernels use(path);
        const StageHashes got = runHashed(model, prompt, steps);
        const std::string difference = firstDifference(goldens, got);
        INFO(name << " on the " << path << " path: first difference from the generic path's goldens at " << difference);
        CHECK(difference.empty());
    }
}

// The last-row-only run's logits against the goldens' on every kernel path.
void checkLastRowsEveryPath(const std::string& name, const Model& model, const std::vector<int32_t>& prompt, int steps) {
    StageHashes goldens = readGoldens(kGoldens / (name + ".txt"));
    std::erase_if(goldens, [](const auto& kv) { return !kv.first.starts_with("logits/"); });
    REQUIRE(goldens.size() == size_t(steps) + 1);
    for (const std::string& path : ml::kernels::supportedPaths()) {
        test::UsingKernels use(path);
        const std::string difference = firstDifference(goldens, runLastRowsOnly(model, prompt, steps));
        INFO(name << " on the " << path << " path, last rows only: first difference from the goldens at " << difference);
        CHECK(difference.empty());
    }
}

// A model of TinyLlama's layout (8 query heads per KV head, Llama 2's byte tokenizer) at a size a
// test runs in a second: every linear weight converted to `type`, the rest BF16 (F32: everything).
Model tinyLlamaShaped(DType type) {
    ModelArgs a;
    a.dim = 256;
    a.n_layers = 2;
    a.n_heads = 8;
    a.n_kv_heads = 1;
    a.vocab_size = 512;
    a.multiple_of = 256;
    a.norm_eps = 1e-5;
    a.rope_theta = 10000.0;
    Model m;
    m.args = a;
    m.format = "synthetic (bit identity test)";
    m.tensors = syntheticWeights(a, 7, false);
    for (auto& [name, t] : m.tensors) {
        const bool linear = t.rank() == 2 && name != "tok_embeddings.weight";
        if (type == DType::BF16 || (!linear && type != DType::F32)) continue;
        Tensor f = ml::ToFloat32(t);
        if (type == DType::F32) {
            t = f;
            continue;
        }
        const std::vector<uint8_t> bytes = quantize(type, f.data<float>(), f.numel());
        Tensor q(t.shape(), type);
        std::memcpy(q.mutableData<uint8_t>(), bytes.data(), bytes.size());
        t = q;
    }
    m.tokenizer = syntheticByteTokenizer(a.vocab_size, TokenizerFamily::Llama2);
    return m;
}

// 19 prompt tokens: a prefill of more rows than any path's tile or panel group.
const std::vector<int32_t> kTinyPrompt{1, 84, 104, 101, 32, 99, 97, 116, 32, 115, 97, 116, 32, 111, 110, 32, 116, 104, 101};

std::vector<int32_t> bundledPrompt(const Model& bundled) { return bundled.tokenizer->encode("And the LORD spake unto Moses, saying, Take the rod", true); }

}  // namespace

TEST_CASE("Bit identity: the bundled model gives the same bits on every kernel path", "[bitidentity][model]") {
    static const Model model = loadModel(std::string(ASSETS_DIR) + "/model");
    checkEveryPath("bundled", model, bundledPrompt(model), 6);
}

TEST_CASE("Bit identity: TinyLlama-shaped weights of every type give the same bits on every kernel path", "[bitidentity][model]") {
    for (DType type : {DType::BF16, DType::F32, DType::Q8_0, DType::Q4_0, DType::Q4_K, DType::Q6_K}) {
        DYNAMIC_SECTION(dtypeName(type)) {
            const Model model = tinyLlamaShaped(type);
            checkEveryPath(std::string("tinyllama-shaped-") + dtypeName(type), model, kTinyPrompt, 4);
        }
    }
}

TEST_CASE("Bit identity: a llama2.c F32 checkpoint gives the same bits on every kernel path", "[bitidentity][model]") {
    const Model model = loadModel((fs::path(TEST_FIXTURES_DIR) / "llama2c" / "legacy.bin").string());
    checkEveryPath("llama2c-legacy", model, model.tokenizer->encode("Once upon a time", true), 6);
}

TEST_CASE("Bit identity: a pass asked for the last row's logits projects that row alone, to the same bits", "[bitidentity][model]") {
    static const Model bundled = loadModel(std::string(ASSETS_DIR) + "/model");
    SECTION("bundled") { checkLastRowsEveryPath("bundled", bundled, bundledPrompt(bundled), 6); }
    for (DType type : {DType::BF16, DType::F32, DType::Q4_K}) {
        DYNAMIC_SECTION(dtypeName(type)) {
            checkLastRowsEveryPath(std::string("tinyllama-shaped-") + dtypeName(type), tinyLlamaShaped(type), kTinyPrompt, 4);
        }
    }
    SECTION("watched, every row is projected, as the log shows") {
        InferenceContext ctx(bundled.args);
        HashingObserver observer;
        ctx.addObserver(&observer);
        const std::vector<int32_t> prompt = bundledPrompt(bundled);
        CHECK(LlamaTransformer(bundled).Forward(ctx, Tensor::fromInt32(prompt), 0, LogitRows::Last).dim(0) == int64_t(prompt.size()));
    }
}
