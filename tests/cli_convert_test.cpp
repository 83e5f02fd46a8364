// `convert --synthetic`: a random-weight preset written as GGUF through the real CLI, and loaded back.
#include <catch2/catch.hpp>

#include "cli_run.h"

#include <cstring>
#include <filesystem>
#include <string>

#include "session/model_source.h"
#include "model/synthetic.h"
#include "test_files.h"

using namespace llama;
namespace fs = std::filesystem;

TEST_CASE("CLI convert --synthetic writes the preset's weights as a GGUF file the engine runs", "[cli][convert]") {
    fs::path file = fs::temp_directory_path() / "llama_cli_convert_tiny_bf16.gguf";
    CliRun r = runWalkthrough("convert --synthetic tiny --seed 7 --to gguf-bf16 --out " + file.string());
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(contains(r.output, "from synthetic preset 'tiny'"));

    // BF16 in, BF16 out: every weight comes back bit for bit, under its Meta name.
    Model loaded = loadModel(file.string());
    Model original = makeSyntheticModel("tiny", 7, false);
    CHECK(loaded.args.dim == original.args.dim);
    CHECK(loaded.args.n_layers == original.args.n_layers);
    CHECK(loaded.args.n_kv_heads == original.args.n_kv_heads);
    CHECK(loaded.args.vocab_size == original.args.vocab_size);
    REQUIRE(loaded.tokenizer->vocabSize() == original.tokenizer->vocabSize());
    for (const auto& [name, t] : original.tensors) {
        INFO(name);
        const Tensor& back = loaded.tensor(name, t.shape());
        REQUIRE(back.dtype() == (t.rank() == 1 ? DType::F32 : DType::BF16));  // norms are written as F32
        if (t.rank() == 2) CHECK(std::memcmp(back.rawData(), t.rawData(), t.byteSize()) == 0);
    }

    CliRun run = runWalkthrough("--model " + file.string() + " -q -p Hello -n 2");
    INFO(run.output);
    CHECK(run.exitCode == 0);
    CHECK(contains(run.output, "generated tokens: 2"));
    fs::remove(file);
}

TEST_CASE("CLI convert needs exactly one of --model and --synthetic", "[cli][convert]") {
    CliRun neither = runWalkthrough("convert --to gguf-bf16 --out /tmp/llama_cli_convert_unused.gguf");
    INFO(neither.output);
    CHECK(neither.exitCode == 1);
    CHECK(contains(neither.output, "error: convert needs --model PATH or --synthetic PRESET"));
    CliRun both = runWalkthrough("convert --model x --synthetic tiny --to gguf-bf16 --out /tmp/llama_cli_convert_unused.gguf");
    INFO(both.output);
    CHECK(both.exitCode != 0);
    CHECK(contains(both.output, "--model and --synthetic cannot be used together"));
    CliRun unknown = runWalkthrough("convert --synthetic huge --to gguf-bf16 --out /tmp/llama_cli_convert_unused.gguf");
    INFO(unknown.output);
    CHECK(unknown.exitCode == 1);
    CHECK(contains(unknown.output, "unknown synthetic preset 'huge'"));
    CHECK_FALSE(fs::exists("/tmp/llama_cli_convert_unused.gguf"));
}
