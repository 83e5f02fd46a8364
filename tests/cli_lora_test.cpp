// LoRA adapters from the CLI (issue 44, item 6): greedy text with an adapter written by llama.cpp's
// gguf-py and with one this engine trained equals llama-cli's (goldens by
// tests/fixtures/lora/make_goldens.py, on the bundled model as an F32 GGUF), the lora stage in the
// debug log, `train --lora-rank` writing an adapter that loads (trained on a text or on chat
// examples), and an adapter for another model refused before anything runs.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "trace/trace_reader.h"

namespace fs = std::filesystem;

namespace {
const std::string kLora = std::string(TEST_FIXTURES_DIR) + "/lora/";

nlohmann::json goldens() { return readGoldens(kLora + "llamacpp_goldens.json"); }
}  // namespace

TEST_CASE("CLI LoRA: greedy text with llama.cpp's adapter, ours and both at once is llama-cli's", "[cli][lora][llamacpp]") {
    const auto g = goldens();
    REQUIRE(g["runs"].size() == 8);
    for (const auto& c : g["runs"]) {
        std::string options;
        for (const auto& a : c["adapters"]) options += fmt::format(" --lora {}{}:{}", kLora, a[0].get<std::string>(), a[1].get<float>());
        DYNAMIC_SECTION(options << " / " << c["prompt"].get<std::string>()) {
            auto r = runWalkthrough(fmt::format("-q --threads 2 --model {} -p {} -n {}{}", bundledF32Gguf(), quoted(c["prompt"]), c["n"].get<int>(), options));
            REQUIRE(r.exitCode == 0);
            CHECK(generatedText(r) == c["text"].get<std::string>());
        }
    }
}

TEST_CASE("CLI LoRA: each adapted matrix's product is a lora stage of the debug log", "[cli][lora]") {
    // llamacpp_made.gguf adapts all seven matrices of layers 1 and 8: 14 products in the one pass of -n 1.
    auto r = runWalkthrough("-q -n 1 -p 'And God said' --lora " + kLora + "llamacpp_made.gguf:0.5 --debug-log /dev/stdout");
    REQUIRE(r.exitCode == 0);
    size_t count = 0;
    for (size_t at = 0; (at = r.output.find("LoRA (--lora " + kLora + "llamacpp_made.gguf:0.5): 1 * (x ", at)) != std::string::npos; ++at) ++count;
    CHECK(count == 14);
    CHECK_THAT(r.output, Catch::Contains("· lora_aᵀ shape([2 256])) · lora_bᵀ shape([1024 2]) -> tensor product shape([4 1024]), added to x · ffn_gateᵀ"));
}

TEST_CASE("CLI train --lora-rank: fine-tunes the bundled model and writes an adapter that --lora loads", "[cli][lora][train]") {
    const ScratchDir out{fs::temp_directory_path() / ("llama_lora_train_" + std::to_string(getpid()))};
    auto r = runWalkthrough("train --model " + std::string(ASSETS_DIR) + "/model --text " + std::string(ASSETS_DIR) + "/text/jude.txt --out " +
                            out.path.string() + " --lora-rank 1 --lora-targets wo,w3 --steps 2 --batch 1 --seq-len 8 --lr 0.01 --warmup 1");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.output, Catch::Contains("rank 1, alpha 1 (scale 1), wo,w3 in each of 8 layers: 14336 trained parameters; the model's own are frozen"));
    const fs::path adapter = out.path / "adapter.gguf";
    REQUIRE(fs::exists(adapter));
    auto run = runWalkthrough("-q -n 4 --lora " + adapter.string() + " --debug-log /dev/stdout");
    REQUIRE(run.exitCode == 0);
    CHECK_THAT(run.output, Catch::Contains("added to x · attn_woᵀ") && Catch::Contains("added to x · ffn_upᵀ"));
}

TEST_CASE("CLI train --lora-rank: the adapter's backward is a lora_backward stage of the log, the stepper and the trace", "[cli][lora][train][trace]") {
    const ScratchDir out{fs::temp_directory_path() / ("llama_lora_backward_" + std::to_string(getpid()))};
    const std::string log = out.path.string() + ".log", trace = out.path.string() + ".trace";
    // Rank 2 on wq and w2 of the bundled model's 8 blocks, one window of 8 tokens: 16 lora_backward
    // stages, each just before the backward stage of the layer it adapts.
    auto r = runWalkthrough("train --model " + std::string(ASSETS_DIR) + "/model --text " + std::string(ASSETS_DIR) + "/text/jude.txt --out " +
                            out.path.string() + " --lora-rank 2 --lora-alpha 4 --lora-targets wq,w2 --steps 1 --batch 1 --seq-len 8 --warmup 1 --debug-log " +
                            log + " --trace " + trace);
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    std::ifstream in(log);
    const std::string lines((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t count = 0;
    for (size_t at = 0; (at = lines.find("Backward of LoRA (the adapter being trained) on ", at)) != std::string::npos; ++at) ++count;
    CHECK(count == 16);
    CHECK_THAT(lines, Catch::Contains("Backward of LoRA (the adapter being trained) on attn_wq for dY shape([8 256]) and x shape([8 256]): with u = x · "
                                      "lora_aᵀ shape([2 256]), lora_b's gradient += 2 * dYᵀ · u shape([256 2]), lora_a's += (2 * dY · lora_b "
                                      "shape([256 2]))ᵀ · x shape([2 256]), x's gradient += 2 * dY · lora_b · lora_a -> tensor dXLora shape([8 256]) "
                                      "(|dLoraB| "));
    CHECK_THAT(lines, Catch::Contains("on ffn_down for dY shape([8 256]) and x shape([8 1024])"));
    // The model's own weights are frozen: their gradients' norms say so, never "nan".
    CHECK_THAT(lines, Catch::Contains("|dAttnNorm| frozen"));
    CHECK_THAT(lines, !Catch::Contains("nan"));
    // Each before its layer's own backward stage, whose x gradient includes its share.
    const size_t lora = lines.find("on ffn_down for dY"), down = lines.find("Backward of ml.LinearTransformation for dOutput shape([8 256]) and LlamaFeedForward.ffn_down");
    REQUIRE(lora != std::string::npos);
    REQUIRE(down != std::string::npos);
    CHECK(lora < down);

    const llama::TraceRun run = llama::readTrace(trace);
    int traced = 0;
    for (const llama::TracedStage& s : run.stages) {
        if (s.stage != llama::StageId::LoraBackward) continue;
        ++traced;
        const llama::TracedTensor* dA = s.tensor("dLoraA");
        const llama::TracedTensor* dB = s.tensor("dLoraB");
        REQUIRE(dA);
        REQUIRE(dB);
        CHECK(dA->shape[0] == 2);
        CHECK(dB->shape[1] == 2);
        CHECK(dA->hasValues());  // the viewer's heatmap shows them
    }
    CHECK(traced == 16);

    // --step stops there: `b lora_backward 3` runs on to the first in layer 3 (1-based), w2's: the
    // feed-forward comes first going backward.
    auto stepped = runWalkthrough("train --model " + std::string(ASSETS_DIR) + "/model --text " + std::string(ASSETS_DIR) + "/text/jude.txt --out " +
                                      out.path.string() + " --force --lora-rank 2 --lora-targets wq,w2 --steps 1 --batch 1 --seq-len 8 --warmup 1 --step",
                                  "b lora_backward 3\nc\nq\n");
    INFO(stepped.output);
    const size_t paused = stepped.output.find("-- Stage 17: Backward: a LoRA adapter's product [lora_backward] chapters/21-training.md");
    REQUIRE(paused != std::string::npos);
    CHECK(stepped.output.find("   | Backward of LoRA (the adapter being trained) on ffn_down", paused) != std::string::npos);
    CHECK(stepped.output.find("(breakpoint)", paused) != std::string::npos);
    fs::remove(log);
    fs::remove(trace);
}

TEST_CASE("CLI train --lora-rank --sft: an adapter fine-tuned on chat examples learns their replies", "[cli][lora][train][sft]") {
    const ScratchDir dir{fs::temp_directory_path() / ("llama_lora_sft_" + std::to_string(getpid()))};
    fs::create_directories(dir.path);
    auto example = [](const std::string& user, const std::string& reply) {
        return R"({"messages": [{"role": "user", "content": ")" + user + R"("}, {"role": "assistant", "content": ")" + reply + "\"}]}\n";
    };
    const std::string chat = (dir.path / "chat.jsonl").string();
    std::ofstream(chat) << example("Quote Genesis 1:1.", "In the beginning God created the heaven and the earth.") + example("Quote John 11:35.", "Jesus wept.");
    const fs::path out = dir.path / "adapter";
    // Scored on the examples it trains on: the replies' loss, before and after, must fall.
    auto r = runWalkthrough("train --model " + std::string(ASSETS_DIR) + "/model --sft " + chat + " --heldout " + chat + " --out " + out.string() +
                            " --lora-rank 4 --steps 8 --batch 2 --seq-len 48 --lr 0.01 --warmup 1 --log-every 4 --eval-every 8");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.output, Catch::Contains("Chat examples: " + chat + " (2 examples, ") && Catch::Contains("; held out: " + chat + " (2 examples)") &&
                             Catch::Contains("windows of whole examples, up to 48 tokens"));
    const size_t before = r.output.find("Held-out loss before training: "), after = r.output.find("\"heldout_loss\": ");
    REQUIRE(before != std::string::npos);
    REQUIRE(after != std::string::npos);
    CHECK(std::stod(r.output.substr(after + 16)) < std::stod(r.output.substr(before + 31)) - 0.1);
    REQUIRE(fs::exists(out / "adapter.gguf"));
    auto run = runWalkthrough("-q -n 4 --chat --prompt 'Quote John 11:35.' --lora " + (out / "adapter.gguf").string());
    CHECK(run.exitCode == 0);
}

TEST_CASE("CLI LoRA: an adapter for another model is refused naming the tensor and both shapes", "[cli][lora][errors]") {
    SECTION("the bundled model's adapter on the tiny synthetic model") {
        requireOneClearError(runWalkthrough("--synthetic tiny -n 1 --lora " + kLora + "llamacpp_made.gguf"),
                             "'blk.0.attn_k.weight.lora_a' is [2 256] and 'blk.0.attn_k.weight.lora_b' is [64 2], but the model's blk.0.attn_k.weight is "
                             "[32 64] ([out, in])");
    }
    SECTION("a control vector is not an adapter") {
        requireOneClearError(runWalkthrough("-n 1 --lora " + std::string(TEST_FIXTURES_DIR) + "/steer/joy.gguf"),
                             "joy.gguf: general.type is '(missing)', not 'adapter'");
    }
    SECTION("train --lora-rank without --model") {
        const ScratchDir out{fs::temp_directory_path() / ("llama_lora_nomodel_" + std::to_string(getpid()))};
        requireOneClearError(runWalkthrough("train --text " + std::string(ASSETS_DIR) + "/text/jude.txt --out " + out.path.string() + " --lora-rank 2"),
                             "--lora-rank fine-tunes a model: give its files with --model");
    }
}
