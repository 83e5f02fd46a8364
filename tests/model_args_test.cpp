#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "formats/meta/params_json.h"
#include "model/model_args.h"
#include "model/synthetic.h"

using namespace llama;

namespace {
std::string writeArgsFile(const std::string& name, const std::string& text) {
    auto path = std::filesystem::temp_directory_path() / ("llama_args_test_" + name);
    std::ofstream(path) << text;
    return path.string();
}
}  // namespace

TEST_CASE("FFN hidden size is derived as Meta derives it", "[model][args]") {
    // Llama 3.1 8B: 14336; Llama 2 7B: 11008; TinyLlama 1.1B: 5632.
    REQUIRE(syntheticArgs("llama3.1-8b").ffnHiddenDim() == 14336);
    REQUIRE(syntheticArgs("llama2-7b").ffnHiddenDim() == 11008);
    REQUIRE(syntheticArgs("tinyllama-1.1b").ffnHiddenDim() == 5632);
    REQUIRE(syntheticArgs("llama3.1-8b").nRep() == 4);
    REQUIRE(syntheticArgs("llama3.1-8b").headDim() == 128);
}

TEST_CASE("params.json of Llama 3.1 8B is read", "[model][args]") {
    auto path = writeArgsFile("ok.json", R"({"dim": 4096, "n_layers": 32, "n_heads": 32, "n_kv_heads": 8, "vocab_size": 128256,
        "ffn_dim_multiplier": 1.3, "multiple_of": 1024, "norm_eps": 1e-05, "rope_theta": 500000.0, "use_scaled_rope": true})");
    ModelArgs a = loadParamsJson(path);
    REQUIRE(a.dim == 4096);
    REQUIRE(a.n_kv_heads == 8);
    REQUIRE(a.use_scaled_rope);
    REQUIRE(a.rope_theta == 500000.0);
    REQUIRE(a.ffnHiddenDim() == 14336);
}

TEST_CASE("broken params.json gives a clear error", "[model][args][errors]") {
    REQUIRE_THROWS_WITH(loadParamsJson(writeArgsFile("bad1.json", "{ not json")), Catch::Contains("not valid JSON"));
    REQUIRE_THROWS_WITH(loadParamsJson(writeArgsFile("bad3.json", R"({"n_layers": 2, "n_heads": 4, "vocab_size": 10})")),
                        Catch::Contains("missing field 'dim'"));
    REQUIRE_THROWS_WITH(loadParamsJson(writeArgsFile("bad4.json", R"({"dim": "big", "n_layers": 2, "n_heads": 4, "vocab_size": 10})")),
                        Catch::Contains("'dim' must be a number"));
    REQUIRE_THROWS_WITH(loadParamsJson(writeArgsFile("bad5.json", R"({"dim": 64, "n_layers": 2, "n_heads": 5, "vocab_size": 10})")),
                        Catch::Contains("divisible by 'n_heads'"));
    REQUIRE_THROWS_WITH(loadParamsJson(writeArgsFile("bad6.json", R"({"dim": 64, "n_layers": 2, "n_heads": 4, "n_kv_heads": 3, "vocab_size": 10})")),
                        Catch::Contains("divisible by 'n_kv_heads'"));
    REQUIRE_THROWS_WITH(loadParamsJson("/nonexistent/params.json"), Catch::Contains("cannot open"));
}
