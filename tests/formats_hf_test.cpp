// Hugging Face models: the bundled model converted to safetensors + config.json +
// tokenizer.json (formats/hf_export.h, q/k rows permuted as HF's script does) must load back
// to the same weights and the same hfGreedy tokens; hostile safetensors headers are refused
// with a message naming the problem.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli_run.h"
#include "formats/hf/hf_config.h"
#include "formats/hf/hf_export.h"
#include "formats/hf/hf_loader.h"
#include "session/model_source.h"
#include "formats/hf/safetensors.h"
#include "generate/generator.h"

using namespace llama;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

fs::path hfTempDir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("llama_hf_test_" + std::to_string(::getpid())) / name;
    fs::create_directories(dir);
    return dir;
}

const Model& hfMetaModel() {
    static Model model = loadModel(std::string(ASSETS_DIR) + "/model");
    return model;
}

// The bundled model converted once per test run.
const fs::path& hfDir() {
    static const fs::path dir = [] {
        const fs::path d = hfTempDir("bundled-hf");
        exportHf(hfMetaModel(), d.string());
        return d;
    }();
    return dir;
}

const Tensor& find(const Model& m, const std::string& name) {
    for (const auto& [n, t] : m.tensors)
        if (n == name) return t;
    FAIL("no tensor " << name);
    throw;
}

std::vector<int32_t> hfGreedy(const Model& m, const std::string& prompt, int n) {
    LlamaTransformer transformer(m);
    InferenceContext ctx(m.args);
    Sampler sampler({});
    return Generator(transformer, *m.tokenizer).generate(ctx, "<|begin_of_text|>" + prompt, n, sampler, {}).generatedTokens;
}

// A safetensors file of `header` (padded with spaces to 8 bytes unless `pad` is off, as
// writers do so that the data is aligned) and `dataBytes` zero bytes; the length field may lie.
std::string writeRaw(const std::string& name, std::string header, size_t dataBytes, std::optional<uint64_t> lengthField = {},
                     bool pad = true) {
    const fs::path path = hfTempDir("hostile") / name;
    std::ofstream out(path, std::ios::binary);
    if (pad) header.append((8 - header.size() % 8) % 8, ' ');
    const uint64_t n = lengthField.value_or(header.size());
    for (int i = 0; i < 8; ++i) out.put(char((n >> (8 * i)) & 0xFF));
    out << header << std::string(dataBytes, '\0');
    return path.string();
}

std::string writeBytes(const std::string& name, const std::string& bytes) {
    const fs::path path = hfTempDir("hostile") / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
}

}  // namespace

TEST_CASE("HF: the converted bundled model loads with Meta's weights and q/k rows restored", "[hf][model]") {
    const Model hf = loadModel(hfDir().string());
    REQUIRE(hf.format == "Hugging Face safetensors");
    REQUIRE(hf.args.dim == hfMetaModel().args.dim);
    REQUIRE(hf.args.n_kv_heads == hfMetaModel().args.n_kv_heads);
    REQUIRE(hf.args.ffnHiddenDim() == hfMetaModel().args.ffnHiddenDim());
    REQUIRE(hf.tensors.size() == hfMetaModel().tensors.size());
    for (const auto& [name, t] : hfMetaModel().tensors) {
        INFO(name);
        const Tensor& ours = find(hf, name);
        REQUIRE(ours.shape() == t.shape());
        REQUIRE(std::memcmp(ours.rawData(), t.rawData(), t.byteSize()) == 0);
    }
    // The file really holds the permuted rows (otherwise the test above proves nothing).
    const SafetensorsFile file = SafetensorsFile::load((hfDir() / "model.safetensors").string());
    const Tensor& wq = find(hfMetaModel(), "layers.0.attention.wq.weight");
    for (const NamedTensor& t : file.tensors())
        if (t.name == "model.layers.0.self_attn.q_proj.weight") REQUIRE(std::memcmp(t.tensor.rawData(), wq.rawData(), wq.byteSize()) != 0);
    REQUIRE(hf.chatTemplate.find("<|start_header_id|>") != std::string::npos);
}

TEST_CASE("HF: the converted bundled model generates the same greedy tokens as the Meta original", "[hf][model]") {
    const Model hf = loadModel(hfDir().string());
    for (const char* prompt : {"In the beginning God created", "And Moses said unto the LORD"}) {
        INFO(prompt);
        REQUIRE(hfGreedy(hf, prompt, 24) == hfGreedy(hfMetaModel(), prompt, 24));
    }
}

TEST_CASE("HF: tokenizer.json gives the tiktoken tokenizer's ids on the bundled vocabulary", "[hf][tokenizer]") {
    const Model hf = loadModel(hfDir().string());
    std::ifstream in(std::string(ASSETS_DIR) + "/golden/tokenizer_cases.json");
    const auto cases = nlohmann::json::parse(in);
    REQUIRE(hf.tokenizer->bosId() == hfMetaModel().tokenizer->bosId());
    auto sorted = [](std::vector<int32_t> ids) {
        std::sort(ids.begin(), ids.end());
        return ids;
    };
    REQUIRE(sorted(hf.tokenizer->stopIds()) == sorted(hfMetaModel().tokenizer->stopIds()));
    for (const auto& c : cases["cases"]) {
        const std::string text = c["text"];
        INFO(text);
        REQUIRE(hf.tokenizer->encode(text, true) == c["ids"].get<std::vector<int32_t>>());
        REQUIRE(hf.tokenizer->decode(c["ids"].get<std::vector<int32_t>>()) == text);
    }
}

TEST_CASE("HF: hostile safetensors headers are refused with the reason", "[hf][safetensors]") {
    const std::string ok = R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})";
    struct Case {
        const char* what;
        std::string path;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"too short", writeBytes("short", "abc"), "too short"},
        {"huge header length", writeRaw("huge", ok, 16, uint64_t(1) << 40), "exceeds the limit of 104857600 bytes"},
        {"header past the end", writeRaw("past", ok, 16, ok.size() + 100), "runs past the end of the file"},
        {"not JSON", writeRaw("json", "{\"w\": [", 16), "header is not valid JSON"},
        {"not an object", writeRaw("array", "[1,2]", 0), "header is not a JSON object"},
        {"unknown dtype", writeRaw("dtype", R"({"w":{"dtype":"Q9","shape":[2],"data_offsets":[0,2]}})", 2), "unknown dtype 'Q9'"},
        {"float16", writeRaw("f16", R"({"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})", 4), "is float16"},
        {"int64", writeRaw("i64", R"({"w":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", 8), "only BF16 and F32"},
        {"byte count", writeRaw("count", R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,12]}})", 16), "needs 16 bytes"},
        {"outside data", writeRaw("outside", ok, 8), "outside the data section (8 bytes)"},
        {"overlap", writeRaw("overlap", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12), "overlap"},
        {"reversed offsets", writeRaw("reversed", R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", 8), "end before they begin"},
        {"negative dim", writeRaw("negdim", R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4), "non-negative integers"},
        {"missing offsets", writeRaw("nooff", R"({"w":{"dtype":"F32","shape":[1]}})", 4), "'data_offsets' must be"},
        {"unaligned", writeRaw("unaligned", R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}} )", 4, {}, false), "not aligned"},
        {"overflowing shape", writeRaw("overflow", R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", 4), "overflows"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        REQUIRE_THROWS_WITH(SafetensorsFile::load(c.path), Contains(c.message) && Contains(c.path));
    }
    // The well-formed one loads as a view.
    const SafetensorsFile f = SafetensorsFile::load(writeRaw("ok", ok + "  ", 16));
    REQUIRE(f.tensors().size() == 1);
    REQUIRE(f.tensors()[0].tensor.shape() == Shape{2, 2});
}

TEST_CASE("HF: --model on an unrecognised directory lists what was looked for", "[hf][cli]") {
    const fs::path dir = hfTempDir("empty");
    const CliRun r = runWalkthrough("--model " + dir.string() + " -p hi -n 1");
    INFO(r.output);
    REQUIRE(r.exitCode == 1);
    for (const char* looked : {"params.json", "consolidated.00.pth", "tokenizer.model", "config.json", "model.safetensors",
                               "model.safetensors.index.json", "tokenizer.json"})
        CHECK_THAT(r.output, Contains(looked));
}

TEST_CASE("inspect: the bundled model's format, args, special tokens and tensor table", "[hf][cli]") {
    const CliRun r = runWalkthrough("inspect --model " + std::string(ASSETS_DIR) + "/model");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    for (const char* line : {"Model: Meta consolidated.00.pth\n", " n_kv_heads 2 (N_Rep 4) |", " FFN hidden 1024\n", "  vocab_size 4096 |",
                             "     3840  <|begin_of_text|>            BOS", "     3849  <|eot_id|>                   stops generation",
                             "     3846  <|start_header_id|>\n", "  256 special tokens (248 reserved placeholders not listed)",
                             "Tensors: 75, 19407360 bytes (19.4 MB), dtype BF16",
                             "  layers.7.feed_forward.w2.weight  [256 1024]      BF16         524288\n"})
        CHECK_THAT(r.output, Contains(line));
}

TEST_CASE("inspect: a Hugging Face directory shows its chat template", "[hf][cli]") {
    const CliRun r = runWalkthrough("inspect --model " + hfDir().string());
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.output, Contains("Model: Hugging Face safetensors"));
    CHECK_THAT(r.output, Contains("Chat template (tokenizer_config.json"));
    CHECK_THAT(r.output, Contains("  layers.0.attention.wq.weight     [256 256]       BF16         131072\n"));
}

TEST_CASE("HF: sharded weights (model.safetensors.index.json) load like one file", "[hf][safetensors]") {
    const fs::path dir = hfTempDir("sharded");
    for (const char* f : {"config.json", "tokenizer.json", "tokenizer_config.json"})
        fs::copy_file(hfDir() / f, dir / f, fs::copy_options::overwrite_existing);
    const SafetensorsFile whole = SafetensorsFile::load((hfDir() / "model.safetensors").string());
    std::vector<std::pair<std::string, Tensor>> shard[2];
    nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
    for (size_t i = 0; i < whole.tensors().size(); ++i) {
        const NamedTensor& t = whole.tensors()[i];
        const int s = i < whole.tensors().size() / 2 ? 0 : 1;
        shard[s].emplace_back(t.name, t.tensor);
        index["weight_map"][t.name] = s == 0 ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
    }
    writeSafetensors((dir / "model-00001-of-00002.safetensors").string(), shard[0]);
    writeSafetensors((dir / "model-00002-of-00002.safetensors").string(), shard[1]);
    std::ofstream(dir / "model.safetensors.index.json") << index.dump(2);
    const Model sharded = loadModel(dir.string());
    const Model single = loadModel(hfDir().string());
    REQUIRE(sharded.tensors.size() == single.tensors.size());
    for (const auto& [name, t] : single.tensors) {
        INFO(name);
        REQUIRE(std::memcmp(find(sharded, name).rawData(), t.rawData(), t.byteSize()) == 0);
    }
    // The index must be right about where each tensor is.
    index["weight_map"]["lm_head.weight"] = "model-00001-of-00002.safetensors";
    std::ofstream(dir / "model.safetensors.index.json") << index.dump(2);
    REQUIRE_THROWS_WITH(loadModel(dir.string()), Contains("puts 'lm_head.weight' in this file, but it is not there"));
    // An index may only name files beside it.
    index["weight_map"]["lm_head.weight"] = "../elsewhere.safetensors";
    std::ofstream(dir / "model.safetensors.index.json") << index.dump(2);
    REQUIRE_THROWS_WITH(loadModel(dir.string()), Contains("not a file in the directory"));
}

TEST_CASE("convert --to safetensors writes a Hugging Face directory the walkthrough runs", "[hf][cli]") {
    const fs::path out = hfTempDir("convert-cli") / "bundled";
    const CliRun c = runWalkthrough("convert --model " + std::string(ASSETS_DIR) + "/model --to safetensors --out " + out.string());
    INFO(c.output);
    REQUIRE(c.exitCode == 0);
    CHECK_THAT(c.output, Contains("(safetensors,"));
    for (const char* f : {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"}) CHECK(fs::is_regular_file(out / f));
    const CliRun r = runWalkthrough("--model " + out.string() + " -p \"In the beginning\" -n 4 -q");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
}

TEST_CASE("HF: tied embeddings, and tensors that are not Llama's", "[hf][safetensors]") {
    const fs::path dir = hfTempDir("tied");
    for (const char* f : {"tokenizer.json", "tokenizer_config.json"}) fs::copy_file(hfDir() / f, dir / f, fs::copy_options::overwrite_existing);
    std::ifstream configIn(hfDir() / "config.json");
    nlohmann::json config = nlohmann::json::parse(configIn);
    const SafetensorsFile whole = SafetensorsFile::load((hfDir() / "model.safetensors").string());
    std::vector<std::pair<std::string, Tensor>> tensors;
    for (const NamedTensor& t : whole.tensors())
        if (t.name != "lm_head.weight") tensors.emplace_back(t.name, t.tensor);
    writeSafetensors((dir / "model.safetensors").string(), tensors);
    std::ofstream(dir / "config.json") << config.dump();
    REQUIRE_THROWS_WITH(loadModel(dir.string()), Contains("no lm_head.weight, and config.json does not set tie_word_embeddings"));

    config["tie_word_embeddings"] = true;
    std::ofstream(dir / "config.json") << config.dump();
    const Model tied = loadModel(dir.string());
    REQUIRE(find(tied, "output.weight").rawData() == find(tied, "tok_embeddings.weight").rawData());

    // In a folder of its own: this process has read the first model.safetensors, and no writer
    // replaces a file the process reads.
    const fs::path biased = hfTempDir("tied_bias");
    for (const char* f : {"tokenizer.json", "tokenizer_config.json", "config.json"}) fs::copy_file(dir / f, biased / f, fs::copy_options::overwrite_existing);
    tensors.emplace_back("model.layers.0.self_attn.q_proj.bias", tensors.back().second);
    writeSafetensors((biased / "model.safetensors").string(), tensors);
    REQUIRE_THROWS_WITH(loadModel(biased.string()), Contains("tensor 'model.layers.0.self_attn.q_proj.bias' is not part of a Llama model"));
}

TEST_CASE("HF: config.json read into ModelArgs (Llama 3.2 1B's values)", "[hf]") {
    nlohmann::json config = {{"model_type", "llama"}, {"hidden_size", 2048}, {"num_hidden_layers", 16}, {"num_attention_heads", 32},
                             {"num_key_value_heads", 8}, {"intermediate_size", 8192}, {"vocab_size", 128256}, {"rms_norm_eps", 1e-5},
                             {"rope_theta", 500000.0}, {"max_position_embeddings", 131072}, {"tie_word_embeddings", true},
                             {"torch_dtype", "bfloat16"},
                             {"rope_scaling", {{"rope_type", "llama3"}, {"factor", 32.0}, {"low_freq_factor", 1.0},
                                               {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 8192}}}};
    const fs::path path = hfTempDir("config") / "config.json";
    std::ofstream(path) << config.dump();
    const HfConfig c = loadHfConfig(path.string());
    CHECK(c.args.dim == 2048);
    CHECK(c.args.nRep() == 4);
    CHECK(c.args.ffnHiddenDim() == 8192);
    CHECK(c.args.use_scaled_rope);
    CHECK(c.args.rope_scale_factor == 32.0);
    CHECK(c.args.max_seq_len == 131072);
    CHECK(c.tieWordEmbeddings);

    config["rope_scaling"]["high_freq_factor"] = 2.0;
    std::ofstream(path) << config.dump();
    CHECK_THROWS_WITH(loadHfConfig(path.string()), Contains("rope_scaling.high_freq_factor is 2"));
    config.erase("num_attention_heads");
    std::ofstream(path) << config.dump();
    CHECK_THROWS_WITH(loadHfConfig(path.string()), Contains("missing field 'num_attention_heads'") && Contains(path.string()));
}
