// `llama-walkthrough train` as a user runs it: a tiny model on a small text, stopped and resumed
// to the same bits, its stages logged, and every bad input refused with a clear message.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>

#include "cli_run.h"
#include "trace/trace_reader.h"
#include "viewer/tests/trace_edit.h"

namespace fs = std::filesystem;

namespace {

const std::string kShape =
    "train --tokenizer ../assets/model/tokenizer.model --seq-len 32 --batch 2 --warmup 2 --dim 64 --n-layers 2 --n-heads 4 "
    "--n-kv-heads 2 --multiple-of 32 --log-every 1 --eval-every 3 --checkpoint-minutes 1000";
const std::string kTiny = kShape + " --steps 6";

fs::path trainScratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("llama_train_" + std::to_string(getpid()) + "_" + name);
    fs::remove_all(dir);
    return dir;
}

std::string bytesOf(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string text(const fs::path& path, const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
    return path.string();
}

}  // namespace

TEST_CASE("train: a run stopped and resumed computes the same bits as one never stopped", "[train][cli]") {
    const fs::path straight = trainScratch("straight"), resumed = trainScratch("resumed");
    const std::string data = "--text ../assets/samples.txt --heldout ../assets/README.md ";
    const CliRun a = runWalkthrough(kTiny + " " + data + "--out " + straight.string());
    INFO(a.output);
    REQUIRE(a.exitCode == 0);
    CHECK(a.output.find(R"({"step": 6, "train_loss": )") != std::string::npos);
    const CliRun stop = runWalkthrough(kTiny + " " + data + "--out " + resumed.string() + " --stop-at 3");
    INFO(stop.output);
    REQUIRE(stop.exitCode == 0);
    CHECK(stop.output.find("Stopped after step 3") != std::string::npos);
    const CliRun go = runWalkthrough(kTiny + " " + data + "--out " + resumed.string() + " --resume");
    INFO(go.output);
    REQUIRE(go.exitCode == 0);
    CHECK(go.output.find("Resumed from " + resumed.string() + " at step 3") != std::string::npos);
    for (const char* file : {"consolidated.00.pth", "optimizer.pth", "model.gguf", "params.json", "tokenizer.model"}) {
        INFO(file);
        CHECK(bytesOf(straight / file) == bytesOf(resumed / file));
    }
    // The loss log, but for the times.
    auto withoutTimes = [](std::string log) {
        std::string out;
        std::istringstream lines(log);
        for (std::string line; std::getline(lines, line);) out += line.substr(0, line.find(", \"elapsed\"")) + "\n";
        return out;
    };
    CHECK(withoutTimes(bytesOf(straight / "log.jsonl")) == withoutTimes(bytesOf(resumed / "log.jsonl")));
    CHECK(bytesOf(straight / "loss.html").find("<svg") != std::string::npos);
    CHECK(bytesOf(straight / "loss.png").substr(0, 8) == "\x89PNG\r\n\x1a\n");

    // The model it wrote runs.
    const CliRun run = runWalkthrough("--model " + straight.string() + " -q --prompt \"And\" -n 2");
    INFO(run.output);
    CHECK(run.exitCode == 0);

    // Resuming with another recipe is refused, naming the setting.
    requireOneClearError(runWalkthrough(kTiny + " --lr 0.01 " + data + "--out " + resumed.string() + " --resume"), "lr");
    // A run begun with BF16 products (the default) resumes only with them.
    requireOneClearError(runWalkthrough(kTiny + " --products f32 " + data + "--out " + resumed.string() + " --resume"), "products");
    // A checkpoint whose training state is damaged is refused, naming the file.
    text(resumed / "training.json", "{\"step\": 3");
    requireOneClearError(runWalkthrough(kTiny + " " + data + "--out " + resumed.string() + " --resume"), "training.json' is not a training state");
    text(resumed / "training.json", "{\"step\": 3}");
    requireOneClearError(runWalkthrough(kTiny + " " + data + "--out " + resumed.string() + " --resume"), "lacks the step, the recipe or the windows' state");
    fs::remove_all(straight);
    fs::remove_all(resumed);
}

TEST_CASE("train: the first step's forward and backward stages in the walkthrough's log", "[train][cli]") {
    const fs::path out = trainScratch("log"), log = out.string() + ".log";
    const CliRun r = runWalkthrough(kShape + " --steps 1 --text ../assets/samples.txt --out " + out.string() + " --debug-log " + log.string());
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    const std::string lines = bytesOf(log);
    for (const char* line : {"Calling ml.CrossEntropy for logits shape([32 4096]) and targets shape([32])",
                             "Backward of ml.LinearTransformation for dLogits shape([32 4096]) and LlamaTransformer.output weights shape([4096 64])",
                             "Backward of ml.Softmax for scores shape([4 32 32])", "Backward of attentionRepeatKV",
                             "Backward of ml.Fwd_Get_Rows for inputTokens shape([32])", "|dTokEmbd| "}) {
        INFO(line);
        CHECK(lines.find(line) != std::string::npos);
    }
    fs::remove_all(out);
    fs::remove(log);
}

TEST_CASE("train: bad input is refused with a clear message and nothing written", "[train][cli]") {
    const fs::path dir = trainScratch("bad");
    fs::create_directories(dir);
    const fs::path out = dir / "out";
    const std::string tail = " --out " + out.string();
    requireOneClearError(runWalkthrough(kTiny + " --text " + text(dir / "empty.txt", "") + tail), "is empty");
    requireOneClearError(runWalkthrough(kTiny + " --text " + text(dir / "binary.bin", std::string("ab\xff\xfe\x00z", 6)) + tail), "byte offset 2");
    requireOneClearError(runWalkthrough(kTiny + " --text " + text(dir / "short.txt", "In the beginning") + tail), "fewer than one window");
    requireOneClearError(runWalkthrough(kTiny + " --text ../assets/samples.txt --heldout " + text(dir / "h.txt", "Amen.") + tail), "held-out text");
    for (const char* lr : {"nan", "1e9", "-1"}) {
        const CliRun r = runWalkthrough(kTiny + " --text ../assets/samples.txt --lr " + lr + tail);
        INFO(r.output);
        CHECK(r.exitCode == 1);
        CHECK(r.output.find("--lr: expected a learning rate above 0, at most 1, got '" + std::string(lr) + "'") != std::string::npos);
    }
    {
        const CliRun r = runWalkthrough(kTiny + " --text ../assets/samples.txt --products f16" + tail);
        INFO(r.output);
        CHECK(r.exitCode != 0);
        CHECK(r.output.find("--products") != std::string::npos);
        CHECK(r.output.find("f16") != std::string::npos);
    }
    std::string threeHeads = kTiny;
    threeHeads.replace(threeHeads.find("--n-heads 4"), 11, "--n-heads 3");
    requireOneClearError(runWalkthrough(threeHeads + " --text ../assets/samples.txt" + tail), "n_heads");
    requireOneClearError(runWalkthrough(kTiny + " --text ../assets/samples.txt --resume" + tail), "holds no training checkpoint");
    CHECK_FALSE(fs::exists(out / "consolidated.00.pth"));
    fs::create_directories(out);
    text(out / "notes.txt", "mine");
    requireOneClearError(runWalkthrough(kTiny + " --text ../assets/samples.txt" + tail), "--force");
    CHECK(bytesOf(out / "notes.txt") == "mine");
    fs::remove_all(dir);
}

TEST_CASE("train: fine-tuning a model on chat examples, stopped and resumed to the same bits", "[train][cli][sft]") {
    const fs::path dir = trainScratch("sft"), base = dir / "base", straight = dir / "straight", resumed = dir / "resumed";
    fs::create_directories(dir);
    const CliRun made = runWalkthrough(kShape + " --steps 2 --text ../assets/samples.txt --out " + base.string());
    INFO(made.output);
    REQUIRE(made.exitCode == 0);
    auto example = [](const std::string& user, const std::string& reply) {
        return R"({"messages": [{"role": "user", "content": ")" + user + R"("}, {"role": "assistant", "content": ")" + reply + "\"}]}\n";
    };
    const std::string chat = text(dir / "chat.jsonl", example("Quote Genesis 1:1.", "In the beginning God created the heaven and the earth.") +
                                                          example("Quote Genesis 1:3.", "And God said, Let there be light: and there was light.") +
                                                          example("Finish the verse: Jesus", "wept.") + example("Which book says: Jesus wept.", "John"));
    const std::string heldout = text(dir / "heldout.jsonl", example("Quote Jude 1:2.", "Mercy unto you, and peace, and love, be multiplied."));
    const std::string sft = "train --init-from " + base.string() + " --sft " + chat + " --heldout " + heldout +
                            " --seq-len 48 --batch 2 --warmup 2 --steps 4 --log-every 1 --eval-every 2 --checkpoint-minutes 1000 --out ";

    const CliRun a = runWalkthrough(sft + straight.string());
    INFO(a.output);
    REQUIRE(a.exitCode == 0);
    CHECK(a.output.find("Chat examples: " + chat + " (4 examples") != std::string::npos);
    CHECK(a.output.find("Starting from the weights of " + base.string()) != std::string::npos);
    CHECK(a.output.find("Held-out loss before training: ") != std::string::npos);
    CHECK(a.output.find(R"({"step": 4, "train_loss": )") != std::string::npos);
    const CliRun stop = runWalkthrough(sft + resumed.string() + " --stop-at 2");
    INFO(stop.output);
    REQUIRE(stop.exitCode == 0);
    const CliRun go = runWalkthrough(sft + resumed.string() + " --resume");
    INFO(go.output);
    REQUIRE(go.exitCode == 0);
    for (const char* file : {"consolidated.00.pth", "optimizer.pth", "model.gguf", "log.jsonl"}) {
        INFO(file);
        std::string x = bytesOf(straight / file), y = bytesOf(resumed / file);
        if (std::string(file) == "log.jsonl")  // but for the times
            for (std::string* log : {&x, &y}) *log = std::regex_replace(*log, std::regex(R"("elapsed": [0-9.]+)"), "");
        CHECK(x == y);
    }
    // The fine-tuned model answers in chat form: its reply is written after the assistant's header.
    const CliRun chatRun = runWalkthrough("--model " + straight.string() + " -q --chat --prompt \"Quote Genesis 1:3.\" -n 2");
    INFO(chatRun.output);
    CHECK(chatRun.exitCode == 0);

    // Resuming with another start, or as pretraining, is refused naming the setting.
    std::string otherStart = sft;
    otherStart.replace(otherStart.find(base.string()), base.string().size(), straight.string());
    requireOneClearError(runWalkthrough(otherStart + resumed.string() + " --resume"), "init_from");
    std::string asText = sft;
    asText.replace(asText.find("--sft " + chat), 6 + chat.size(), "--text ../assets/samples.txt");
    asText.replace(asText.find("--heldout " + heldout), 10 + heldout.size(), "");
    requireOneClearError(runWalkthrough(asText + resumed.string() + " --resume"), "windows");
    // --init-from takes the shape and the tokenizer from the model.
    requireOneClearError(runWalkthrough(sft + (dir / "x").string() + " --dim 32"), "--dim disagrees with the model --init-from names: '" + base.string() + "' has dim 64");
    requireOneClearError(runWalkthrough(sft + (dir / "x").string() + " --tokenizer ../assets/model/tokenizer.model"), "brings its own tokenizer");
    requireOneClearError(runWalkthrough(sft + (dir / "x").string() + " --text ../assets/samples.txt"), "one of --text FILE");
    requireOneClearError(runWalkthrough("train --init-from " + (dir / "nothing").string() + " --sft " + chat + " --out " + (dir / "x").string()),
                         (dir / "nothing").string());
    // A bad example is named by file and line.
    const std::string bad = text(dir / "bad.jsonl", example("Quote Genesis 1:1.", "In the beginning") + "{\"messages\": [\n");
    requireOneClearError(runWalkthrough("train --init-from " + base.string() + " --sft " + bad + " --out " + (dir / "x").string()),
                         "chat examples '" + bad + "' line 2 is not JSON");
    const std::string longOne = text(dir / "long.jsonl", example("Quote Genesis 1:1.", std::string(300, 'x')));
    requireOneClearError(runWalkthrough("train --init-from " + base.string() + " --sft " + longOne + " --seq-len 40 --out " + (dir / "x").string()),
                         "line 1: the example is");
    CHECK_FALSE(fs::exists(dir / "x" / "consolidated.00.pth"));
    fs::remove_all(dir);
}

TEST_CASE("train: --trace records the first window's forward pass, loss and backward stages with their shapes", "[train][cli][trace]") {
    const fs::path out = trainScratch("trace"), file = out.string() + ".trace";
    const CliRun r = runWalkthrough(kShape + " --steps 2 --text ../assets/samples.txt --out " + out.string() + " --trace " + file.string());
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(r.output.find("Trace of step 1's window 1 of 2 written to " + file.string()) != std::string::npos);
    const llama::TraceRun run = llama::readTrace(file.string());
    REQUIRE(run.run.training);
    CHECK(run.run.training->step == 1);
    CHECK(run.run.training->windows == 2);
    CHECK(run.promptTokens.size() == 32);
    CHECK(run.stopReason == "training step");
    // Every stage of the backward pass, once per layer inside the blocks, after the forward pass.
    std::map<llama::StageId, int> count;
    size_t firstBackward = run.stages.size(), lastForward = 0;
    for (size_t i = 0; i < run.stages.size(); ++i) {
        const llama::TracedStage& s = run.stages[i];
        CHECK(s.step == 1);
        ++count[s.stage];
        if (llama::isTrainingStage(s.stage)) firstBackward = std::min(firstBackward, i);
        else lastForward = i;
    }
    CHECK(lastForward < firstBackward);
    for (const llama::StageInfo& info : llama::stageCatalog()) {
        if (!llama::isTrainingStage(info.id)) continue;
        INFO(info.key);
        // LoRA's backward runs only where an adapter is trained (tests/cli_lora_test.cpp).
        CHECK(count[info.id] == (info.id == llama::StageId::LoraBackward ? 0 : info.inBlock ? 2 : 1));
    }
    auto tensorOf = [&](llama::StageId stage, const char* name) -> const llama::TracedTensor& {
        for (const llama::TracedStage& s : run.stages)
            if (s.stage == stage)
                if (const llama::TracedTensor* t = s.tensor(name)) return *t;
        FAIL("no tensor " << name);
        throw;
    };
    using S = llama::Shape;
    CHECK(tensorOf(llama::StageId::Loss, "dLogits").shape == S{32, 4096});
    CHECK(tensorOf(llama::StageId::OutputProjectionBackward, "dOutputWeights").shape == S{4096, 64});
    CHECK(tensorOf(llama::StageId::ScoresSoftmaxBackward, "dScores").shape == S{4, 32, 32});
    CHECK(tensorOf(llama::StageId::RepeatKVBackward, "dKeys").shape == S{2, 32, 16});  // KV heads, positions, HeadDim
    CHECK(tensorOf(llama::StageId::QKVBackward, "dAttnWk").shape == S{32, 64});
    CHECK(tensorOf(llama::StageId::InputEmbeddingsBackward, "dTokEmbd").shape == S{4096, 64});
    // The gradients' values, for the viewer's heatmap.
    const llama::TracedTensor& dScores = tensorOf(llama::StageId::ScoresSoftmaxBackward, "dScores");
    REQUIRE(dScores.hasValues());
    CHECK(dScores.values.numel() == 4 * 32 * 32);

    // Training came in version 4: a version 3 file that says it holds a training step is refused,
    // and so is a training stage in a trace whose META does not say so.
    auto refused = [&](const std::function<void(llama::test::EditableTrace&)>& edit, const std::string& expected) {
        auto trace = llama::test::EditableTrace::read(file.string());
        edit(trace);
        const std::string bad = file.string() + ".bad";
        trace.write(bad);
        try {
            llama::readTrace(bad);
            FAIL("no error for " << expected);
        } catch (const llama::TraceError& e) {
            CHECK_THAT(e.what(), Catch::Contains(expected));
        }
        fs::remove(bad);
    };
    refused([](auto& t) { t.header[8] = 3; }, "field 'training': a version 3 trace records inference; training steps came in version 4");
    refused([](auto& t) { t.records[0].json.erase("training"); }, "loss is a training stage, and META has no 'training'");
    fs::remove_all(out);
    fs::remove(file);
}

TEST_CASE("train: --trace-at records the windows of the step it names, and refuses one the run does not do", "[train][cli][trace]") {
    const fs::path out = trainScratch("trace_at"), file = out.string() + ".trace";
    const auto windowFile = [&](int w) { return out.string() + ".window" + std::to_string(w) + ".trace"; };
    // Step 2's two windows, each its own file: its tokens, its step and its window in META.
    const CliRun r = runWalkthrough(kShape + " --steps 2 --text ../assets/samples.txt --out " + out.string() + " --trace " + file.string() + " --trace-at 2:all");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    std::vector<std::vector<int32_t>> tokens;
    for (int w : {0, 1}) {
        INFO(w);
        CHECK(r.output.find("Trace of step 2's window " + std::to_string(w + 1) + " of 2 written to " + windowFile(w + 1)) != std::string::npos);
        const llama::TraceRun run = llama::readTrace(windowFile(w + 1));
        REQUIRE(run.run.training);
        CHECK(run.run.training->step == 2);
        CHECK(run.run.training->window == w);
        CHECK(run.run.training->windows == 2);
        CHECK(run.promptTokens.size() == 32);
        CHECK(run.stages.back().stage == llama::StageId::InputEmbeddingsBackward);
        for (const llama::TracedStage& s : run.stages) CHECK(s.step == 2);
        std::vector<int32_t> ids;
        for (const llama::TraceToken& t : run.promptTokens) ids.push_back(t.id);
        tokens.push_back(ids);
    }
    CHECK(tokens[0] != tokens[1]);  // two windows of the text, not one twice
    CHECK_FALSE(fs::exists(file));
    // One window: the file named, the same window as in the run above (the windows are seeded).
    fs::remove_all(out);
    const CliRun one = runWalkthrough(kShape + " --steps 2 --text ../assets/samples.txt --out " + out.string() + " --trace " + file.string() + " --trace-at 2:2");
    INFO(one.output);
    REQUIRE(one.exitCode == 0);
    const llama::TraceRun run = llama::readTrace(file.string());
    REQUIRE(run.run.training);
    CHECK(run.run.training->window == 1);
    REQUIRE(run.promptTokens.size() == tokens[1].size());
    for (size_t i = 0; i < tokens[1].size(); ++i) CHECK(run.promptTokens[i].id == tokens[1][i]);
    fs::remove_all(out);
    fs::remove(file);

    const std::string base = kShape + " --steps 2 --text ../assets/samples.txt --out " + out.string() + " --trace " + file.string() + " --trace-at ";
    requireOneClearError(runWalkthrough(base + "3:1"), "--trace-at: step 3 is out of range: this run does steps 1 to 2 (--steps 2)");
    requireOneClearError(runWalkthrough(base + "1:3"), "--trace-at: window 3 of '1:3' is out of range: a step has --batch 2 windows, 1 to 2");
    requireOneClearError(runWalkthrough(base + "1:1-3"), "window 3 of '1:1-3' is out of range");
    requireOneClearError(runWalkthrough(base + "0:1"), "--trace-at: steps count from 1");
    requireOneClearError(runWalkthrough(base + "1:0"), "--trace-at: windows count from 1, got window 0 in '1:0'");
    requireOneClearError(runWalkthrough(base + "2"), "--trace-at: '2' has no ':'");
    requireOneClearError(runWalkthrough(base + "two:1"), "--trace-at: 'two' is not a step number");
    requireOneClearError(runWalkthrough(base + "1:2-1"), "run backwards");
    requireOneClearError(runWalkthrough(kShape + " --steps 2 --text ../assets/samples.txt --out " + out.string() + " --trace-at 1:1"), "give --trace too");
    CHECK_FALSE(fs::exists(file));
    CHECK_FALSE(fs::exists(out / "consolidated.00.pth"));
    fs::remove_all(out);
}
