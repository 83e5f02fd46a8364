// llama.cpp's GGUF LoRA adapters (formats/gguf/gguf_lora.h): what the engine writes reads back
// the same, and a file that is not an adapter for the model is refused naming the file, the
// tensor and the shapes.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "formats/gguf/gguf_lora.h"
#include "formats/gguf/gguf_writer.h"
#include "model/synthetic.h"
#include "train/lora_finetune.h"

using namespace llama;
namespace fs = std::filesystem;

namespace {

// The tiny synthetic model: dim 64, 4 heads of 16 over 2 KV heads, FFN 192.
const Model& tiny() {
    static const Model model = makeSyntheticModel("tiny", 1, false);
    return model;
}

// A new name each time: a file this process has read is never written again (io/atomic_output.h).
struct TempGguf {
    static inline int count = 0;
    std::string path = (fs::temp_directory_path() / fmt::format("llama_lora_{}_{}.gguf", getpid(), count++)).string();
    ~TempGguf() { fs::remove(path); }
};

std::function<std::vector<uint8_t>()> floats(int64_t n, float value) {
    return [n, value] {
        std::vector<float> v(size_t(n), value);
        std::vector<uint8_t> bytes(v.size() * sizeof(float));
        std::memcpy(bytes.data(), v.data(), bytes.size());
        return bytes;
    };
}

// An adapter file in llama.cpp's layout; `change` edits it before it is written.
void writeAdapter(const std::string& path, const std::function<void(GgufWriter&, bool&)>& change) {
    GgufWriter w;
    bool alpha = true;
    w.add("general.architecture", GgufValue::ofString("llama"));
    w.add("general.type", GgufValue::ofString("adapter"));
    w.add("adapter.type", GgufValue::ofString("lora"));
    change(w, alpha);
    if (alpha) w.add("adapter.lora.alpha", GgufValue::ofF32(8));
    w.write(path);
}

void addPair(GgufWriter& w, const std::string& weight, Shape a, Shape b, float value = 0.01f) {
    w.addTensor(weight + ".lora_a", a, DType::F32, floats(a[0] * a[1], value));
    w.addTensor(weight + ".lora_b", b, DType::F32, floats(b[0] * b[1], value));
}

}  // namespace

TEST_CASE("GGUF LoRA: an adapter the engine writes reads back with its values, names and scale", "[gguf][lora]") {
    const TempGguf file;
    LoraAdapter made = newLoraAdapter(tiny(), 4, 8.0f, parseLoraTargets("wq,w2"), 3);
    writeLoraAdapter(file.path, made);
    const LoraAdapter read = readLoraAdapter({file.path, 0.5f}, tiny());
    CHECK(read.alpha == 8.0f);
    CHECK(read.userScale == 0.5f);
    REQUIRE(read.pairs.size() == 4);  // wq and w2 of 2 layers
    const auto& pair = read.pairs.at("layers.1.feed_forward.w2.weight");
    CHECK(pair.A.shape() == Shape{4, 192});
    CHECK(pair.B.shape() == Shape{64, 4});
    CHECK(std::memcmp(pair.A.rawData(), made.pairs.at("layers.1.feed_forward.w2.weight").A.rawData(), 4 * 192 * sizeof(float)) == 0);
    CHECK(read.scaleOf(pair) == 0.5f * 8.0f / 4.0f);  // llama.cpp's SCALE * alpha / rank
}

TEST_CASE("GGUF LoRA: a file that is not an adapter for this model is refused naming the tensor and shapes", "[gguf][lora][errors]") {
    auto refused = [&](const std::function<void(GgufWriter&, bool&)>& change, const std::string& message) {
        const TempGguf file;
        writeAdapter(file.path, change);
        REQUIRE_THROWS_WITH(readLoraAdapter({file.path, 1.0f}, tiny()), Catch::Contains("LoRA adapter " + file.path + ": " + message));
    };
    refused([](GgufWriter& w, bool& alpha) { addPair(w, "blk.0.attn_q.weight", {2, 64}, {64, 2}), alpha = false; },
            "adapter.lora.alpha is missing");
    refused([](GgufWriter& w, bool&) { addPair(w, "blk.0.attn_q.weight", {2, 64}, {64, 3}); },
            "'blk.0.attn_q.weight.lora_a' is [2 64] (rank 2) but 'blk.0.attn_q.weight.lora_b' is [64 3] (rank 3)");
    refused([](GgufWriter& w, bool&) { addPair(w, "blk.0.ffn_up.weight", {2, 64}, {64, 2}); },
            "'blk.0.ffn_up.weight.lora_a' is [2 64] and 'blk.0.ffn_up.weight.lora_b' is [64 2], but the model's blk.0.ffn_up.weight is [192 64] ([out, in])");
    refused([](GgufWriter& w, bool&) { addPair(w, "blk.5.attn_q.weight", {2, 64}, {64, 2}); },
            "tensor 'blk.5.attn_q.weight.lora_a' adapts 'blk.5.attn_q.weight', which the model (synthetic:tiny) does not have");
    refused([](GgufWriter& w, bool&) { w.addTensor("blk.0.attn_q.weight.lora_a", {2, 64}, DType::F32, floats(128, 0)); },
            "tensor 'blk.0.attn_q.weight.lora_a' has no partner 'blk.0.attn_q.weight.lora_b'");
    refused([](GgufWriter& w, bool&) { addPair(w, "blk.0.attn_q.weight", {2, 64}, {64, 2}, NAN); }, "tensor 'blk.0.attn_q.weight.lora_a' element 0 is nan");
    refused([](GgufWriter& w, bool&) { addPair(w, "output.weight", {2, 64}, {768, 2}); }, "tensor 'output.weight.lora_a': this engine applies adapters to the blocks' matrices");
    const TempGguf file;
    GgufWriter model;  // a model file, not an adapter
    model.add("general.architecture", GgufValue::ofString("llama"));
    model.add("general.type", GgufValue::ofString("model"));
    model.write(file.path);
    REQUIRE_THROWS_WITH(readLoraAdapter({file.path, 1.0f}, tiny()), Catch::Contains("general.type is 'model', not 'adapter'"));
    refused([](GgufWriter& w, bool&) { w.addTensor("blk.0.attn_q.weight", {64, 64}, DType::F32, floats(64 * 64, 0)); },
            "tensor 'blk.0.attn_q.weight': expected <weight>.lora_a or <weight>.lora_b");
}
