// Writing Meta's layout: torch_save.h's archives read back by our TorchCheckpoint (torch itself
// checks them in torch_save_python_test.sh), params.json's FFN width found again from any model's
// args, and the bundled model converted to Meta's layout giving the original's logits.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_run.h"
#include "formats/gguf/gguf_export.h"
#include "formats/hf/hf_export.h"
#include "formats/meta/meta_export.h"
#include "formats/meta/meta_model.h"
#include "formats/meta/params_json.h"
#include "formats/meta/torch_checkpoint.h"
#include "formats/meta/torch_save.h"
#include "formats/meta/zip_index.h"
#include "formats/meta/zip_writer.h"
#include "formats_fixtures.h"
#include "llama2_model_dir.h"
#include "model/llama_transformer.h"
#include "session/model_source.h"
#include "bundled_model.h"

using namespace llama;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

fs::path saveTempDir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("llama_torch_save_test_" + std::to_string(::getpid())) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// Values i * 0.25 - 3 (exact in BF16), in a tensor of `shape`.
Tensor ramp(const Shape& shape, DType dtype) {
    Tensor t(shape, dtype);
    for (int64_t i = 0; i < t.numel(); ++i) {
        const float v = float(i) * 0.25f - 3;
        if (dtype == DType::F32) t.mutableData<float>()[i] = v;
        else t.mutableData<BFloat16>()[i] = BFloat16(v);
    }
    return t;
}

std::vector<NamedTensor> sample(DType dtype) {
    return {{"layers.0.attention.wq.weight", ramp({6, 4}, dtype)},
            {"norm.weight", ramp({5}, dtype)},
            {"four.dims", ramp({2, 1, 3, 2}, dtype)},  // MARK ... TUPLE rather than TUPLE1-3
            {"scalar", ramp({}, dtype)}};
}

Tensor prefillLogits(const Model& model) {
    LlamaTransformer transformer(model);
    InferenceContext ctx(model.args);
    return transformer.Forward(ctx, Tensor::fromInt32({1, 17, 300, 1000, 42}), 0);
}

bool sameBytes(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.rawData(), b.rawData(), a.byteSize()) == 0;
}

void requireSameTensors(const Model& written, const Model& original) {
    REQUIRE(written.tensors.size() == original.tensors.size());
    for (size_t i = 0; i < original.tensors.size(); ++i) {
        INFO(original.tensors[i].first);
        CHECK(written.tensors[i].first == original.tensors[i].first);
        CHECK(sameBytes(written.tensors[i].second, original.tensors[i].second));
    }
}

}  // namespace

TEST_CASE("torch save: CRC-32 is zip's", "[torchsave]") {
    const std::string check = "123456789";  // the standard check value of CRC-32/ISO-HDLC
    CHECK(crc32(std::as_bytes(std::span(check))) == 0xcbf43926u);
    CHECK(crc32(std::as_bytes(std::span(check).subspan(4)), crc32(std::as_bytes(std::span(check).first(4)))) == 0xcbf43926u);
}

TEST_CASE("torch save: tensors load back with their names, shapes, dtypes and bytes, aligned to 64 bytes", "[torchsave]") {
    for (DType dtype : {DType::F32, DType::BF16}) {
        INFO(dtypeName(dtype));
        const std::vector<NamedTensor> tensors = sample(dtype);
        const std::string path = (saveTempDir("roundtrip") / "consolidated.00.pth").string();
        writeTorchSave(path, tensors, dtype);
        const TorchCheckpoint c = TorchCheckpoint::load(path);
        REQUIRE(c.tensors().size() == tensors.size());
        for (size_t i = 0; i < tensors.size(); ++i) {
            INFO(tensors[i].name);
            CHECK(c.tensors()[i].name == tensors[i].name);
            CHECK(sameBytes(c.tensors()[i].tensor, tensors[i].tensor));
            const auto offset = static_cast<const std::byte*>(c.tensors()[i].tensor.rawData()) - c.file().bytes().data();
            CHECK(offset % 64 == 0);
        }
        // torch's entries, in torch's order, under the file's name.
        const ZipIndex zip(c.file().bytes(), path);
        std::vector<std::string> names;
        for (const ZipEntry& e : zip.entries()) names.push_back(e.name);
        CHECK(names == std::vector<std::string>{"consolidated.00/data.pkl", "consolidated.00/data/0", "consolidated.00/data/1",
                                                "consolidated.00/data/2", "consolidated.00/data/3", "consolidated.00/version"});
    }
}

TEST_CASE("torch save: other dtypes are converted as written", "[torchsave]") {
    const fs::path dir = saveTempDir("convert");
    Tensor third({3}, DType::F32);
    third.mutableData<float>()[0] = 1.0f / 3;
    SECTION("F32 to BF16 rounds to nearest") {
        writeTorchSave((dir / "a.pth").string(), {{"x", third}}, DType::BF16);
        const Tensor x = *TorchCheckpoint::load((dir / "a.pth").string()).find("x");
        REQUIRE(x.dtype() == DType::BF16);
        CHECK(x.floatAt(0) == roundToBF16(1.0f / 3));
    }
    SECTION("BF16 to F32 is exact") {
        writeTorchSave((dir / "b.pth").string(), {{"x", ramp({7}, DType::BF16)}}, DType::F32);
        const Tensor x = *TorchCheckpoint::load((dir / "b.pth").string()).find("x");
        REQUIRE(x.dtype() == DType::F32);
        CHECK(sameBytes(x, ramp({7}, DType::F32)));
    }
    SECTION("only F32 and BF16 storages, of tensors with data") {
        CHECK_THROWS_WITH(writeTorchSave((dir / "c.pth").string(), {{"x", third}}, DType::F16), Contains("only F32 or BF16"));
        CHECK_THROWS_WITH(writeTorchSave((dir / "c.pth").string(), {{"x", Tensor::shapeOnly({3}, DType::F32)}}, DType::F32),
                          Contains("tensor 'x' is shape only"));
        CHECK_FALSE(fs::exists(dir / "c.pth"));
    }
}

TEST_CASE("params.json: the FFN width is found again through Meta's formula", "[torchsave]") {
    auto written = [](int dim, int width) {
        ModelArgs a;
        a.dim = dim, a.n_layers = 1, a.n_heads = 4, a.n_kv_heads = 4, a.vocab_size = 256;
        a.ffn_hidden_dim = width;
        return nlohmann::json::parse(paramsJsonText(a, "model"));
    };
    // Llama 3 8B's own values, and Llama 2 7B's.
    CHECK(written(4096, 14336)["multiple_of"] == 1024);
    CHECK(written(4096, 14336)["ffn_dim_multiplier"] == 1.3);
    CHECK(written(4096, 11008)["multiple_of"] == 256);
    CHECK_FALSE(written(4096, 11008).contains("ffn_dim_multiplier"));
    // Whatever the width, loadParamsJson's args give it back (an odd one needs a precise multiplier).
    const fs::path dir = saveTempDir("params");
    for (auto [dim, width] : std::vector<std::pair<int, int>>{{2048, 8192}, {288, 768}, {256, 1001}, {256, 100}, {4096, 53248}}) {
        INFO(dim << " " << width);
        std::ofstream(dir / "params.json") << written(dim, width).dump();
        CHECK(loadParamsJson((dir / "params.json").string()).ffnHiddenDim() == width);
    }
    CHECK_THROWS_WITH(written(64, 5000), Contains("model: FFN width 5000 (dim 64) cannot be written to params.json"));
    ModelArgs scaled = bundledModel().args;
    scaled.use_scaled_rope = true, scaled.rope_scale_factor = 32;
    CHECK_THROWS_WITH(paramsJsonText(scaled, "m"), Contains("RoPE scaling factor 32 cannot be written to params.json"));
}

TEST_CASE("meta export: the bundled model written in Meta's layout is the same model", "[torchsave]") {
    const fs::path dir = saveTempDir("bundled-meta");
    exportMeta(bundledModel(), DType::BF16, dir.string());
    const Model written = loadMetaModel(dir.string());
    requireSameTensors(written, bundledModel());
    for (const char* f : {"params.json", "tokenizer.model"})
        CHECK(formats_test::readFile((dir / f).string()) == formats_test::readFile(std::string(ASSETS_DIR) + "/model/" + f));
    CHECK(sameBytes(prefillLogits(written), prefillLogits(bundledModel())));
}

TEST_CASE("meta export: F32, for training checkpoints, holds the same values", "[torchsave]") {
    const fs::path dir = saveTempDir("bundled-meta-f32");
    exportMeta(bundledModel(), DType::F32, dir.string());
    const Model written = loadMetaModel(dir.string());
    REQUIRE(written.tensors.size() == bundledModel().tensors.size());
    for (size_t i = 0; i < written.tensors.size(); ++i) {
        const Tensor &w = written.tensors[i].second, &o = bundledModel().tensors[i].second;
        INFO(written.tensors[i].first);
        REQUIRE(w.dtype() == DType::F32);
        REQUIRE(w.shape() == o.shape());
        for (int64_t j = 0; j < o.numel(); j += 97) REQUIRE(w.floatAt(j) == o.floatAt(j));
    }
}

TEST_CASE("meta export: a model from GGUF, whose args state the FFN width, comes back the same", "[torchsave]") {
    const fs::path dir = saveTempDir("from-gguf");
    exportGguf(bundledModel(), DType::BF16, (dir / "model.gguf").string());
    const Model gguf = loadModel((dir / "model.gguf").string());
    REQUIRE(gguf.args.ffn_hidden_dim);
    exportMeta(gguf, DType::BF16, (dir / "meta").string());
    const Model written = loadMetaModel((dir / "meta").string());
    CHECK(written.args.ffnHiddenDim() == bundledModel().args.ffnHiddenDim());
    CHECK(sameBytes(prefillLogits(written), prefillLogits(bundledModel())));
}

TEST_CASE("meta export: Llama 2's SentencePiece tokenizer.model is written as it was read", "[torchsave]") {
    const Model llama2 = loadMetaModel(llama2ModelDirectory().string());
    const fs::path dir = saveTempDir("llama2");
    exportMeta(llama2, DType::BF16, dir.string());
    const Model written = loadMetaModel(dir.string());
    CHECK(written.args.vocab_size == llama2.args.vocab_size);
    const std::string text = "In the beginning God created the heaven and the earth.";
    CHECK(written.tokenizer->encode(text) == llama2.tokenizer->encode(text));
}

TEST_CASE("meta export: a tokenizer Meta's layout cannot hold is refused before anything is written", "[torchsave]") {
    const fs::path dir = saveTempDir("refused");
    exportHf(bundledModel(), (dir / "hf").string());
    const Model hf = loadModel((dir / "hf").string());  // tokenizer.json: neither tiktoken's file nor SentencePiece's
    CHECK_THROWS_WITH(exportMeta(hf, DType::BF16, (dir / "meta").string()),
                      Contains("only Llama 3's tiktoken tokenizer or Llama 2's SentencePiece tokenizer.model"));
    CHECK_FALSE(fs::exists(dir / "meta"));
}

TEST_CASE("convert --to meta writes a directory the walkthrough runs, and only into an empty folder", "[torchsave][cli]") {
    const fs::path out = saveTempDir("convert-cli") / "bundled";
    const CliRun c = runWalkthrough("convert --model " + std::string(ASSETS_DIR) + "/model --to meta --out " + out.string());
    INFO(c.output);
    REQUIRE(c.exitCode == 0);
    CHECK_THAT(c.output, Contains("(meta,"));
    const CliRun r = runWalkthrough("--model " + out.string() + " -p \"In the beginning\" -n 4 -q");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    const CliRun again = runWalkthrough("convert --model " + std::string(ASSETS_DIR) + "/model --to meta-f32 --out " + out.string());
    CHECK(again.exitCode == 1);
    CHECK_THAT(again.output, Contains("is a folder with files in it"));
}
