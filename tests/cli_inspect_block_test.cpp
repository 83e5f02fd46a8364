// `inspect --block TENSOR ROW` on a GGUF file converted from the bundled model.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli_run.h"
#include "test_files.h"

namespace fs = std::filesystem;

TEST_CASE("CLI inspect --block: one block of each format taken apart", "[cli][gguf]") {
    const fs::path dir = fs::temp_directory_path() / "llama_cli_inspect_block";
    fs::create_directories(dir);
    struct Case {
        std::string to, formula, firstField;
    };
    for (const Case& c : {Case{"gguf-q8_0", "w = d * q", "d       float16"}, Case{"gguf-q4_0", "w = d * (q - 8)", "qs      32 unsigned 4-bit q"},
                          Case{"gguf-q4_k", "w = d * sc * q - dmin * m", "dmin    float16"},
                          Case{"gguf-q6_k", "w = d * scale * (q - 32)", "ql      the low 4 bits"}}) {
        INFO(c.to);
        const fs::path file = dir / (c.to + ".gguf");
        REQUIRE(runWalkthrough("convert --model " ASSETS_DIR "/model --to " + c.to + " --out " + file.string()).exitCode == 0);
        CliRun r = runWalkthrough("inspect --model " + file.string() + " --block layers.0.attention.wq.weight 3");
        INFO(r.output);
        CHECK(r.exitCode == 0);
        CHECK(contains(r.output, "Block 0 of row 3: weights 0.."));
        CHECK(contains(r.output, "Every weight: " + c.formula));
        CHECK(contains(r.output, c.firstField));
        CHECK(contains(r.output, "The block's bytes (hex):"));
        CHECK(contains(r.output, "each w = a * q - b"));
    }
    CliRun second = runWalkthrough("inspect --model " + (dir / "gguf-q8_0.gguf").string() + " --block layers.0.attention.wq.weight 0 --block-index 7");
    CHECK(contains(second.output, "Block 7 of row 0: weights 224..255 of the row, bytes 238..271 of the tensor's data"));

    // Mistakes are named.
    const std::string q4 = "inspect --model " + (dir / "gguf-q4_k.gguf").string() + " --block ";
    CHECK(contains(runWalkthrough(q4 + "layers.0.attention.wz.weight 0").output, "has no tensor 'layers.0.attention.wz.weight'"));
    CHECK(contains(runWalkthrough(q4 + "layers.0.attention.wq.weight 256").output, "has rows 0..255, not 256"));
    CHECK(contains(runWalkthrough(q4 + "layers.0.attention.wq.weight 0 --block-index 1").output, "has blocks 0..0, not 1"));
    CliRun plain = runWalkthrough("inspect --block layers.0.attention.wq.weight 0");
    CHECK(plain.exitCode == 1);
    CHECK(contains(plain.output, "is BF16: not block-quantized"));
    fs::remove_all(dir);
}
