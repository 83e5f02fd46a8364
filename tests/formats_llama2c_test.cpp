// llama2.c's checkpoints (legacy, version 1, version 2) and tokenizer.bin, read directly: the
// greedy text of llama2.c's own run.c / runq.c on the models of tests/fixtures/llama2c
// (make_models.py, goldens from make_goldens.sh), the format each is read as, the writer's
// round trip, and the errors for broken files.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/llama2c/llama2c_export.h"
#include "formats/llama2c/llama2c_header.h"
#include "formats/llama2c/llama2c_model.h"
#include "model/llama_transformer.h"
#include "session/model_source.h"
#include "session/session.h"
#include "test_files.h"

using namespace llama;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

const fs::path kDir = fs::path(TEST_FIXTURES_DIR) / "llama2c";

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("llama2c_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir / name;
}

// run.c's generate() with temperature 0: the prompt is forced, then argmax (first maximum) until
// `steps` positions; every token after BOS is printed as run.c's decode() and safe_printf() do
// (a leading space dropped after BOS, a lone unprintable byte skipped), then a newline.
struct RunCText {
    std::string text;
    int generated = 0;
};
RunCText greedyAsRunC(const Model& model, const std::string& prompt, int steps) {
    const Tokenizer& tok = *model.tokenizer;
    std::vector<int32_t> tokens{tok.bosId()};
    for (int32_t id : tok.encode(prompt, false)) tokens.push_back(id);
    LlamaTransformer transformer(model);
    InferenceContext ctx(model.args);
    RunCText out;
    const int64_t vocab = model.args.vocab_size;
    int32_t token = tokens[0];
    for (int pos = 0; pos < steps; ++pos) {
        const Tensor logits = transformer.Forward(ctx, Tensor::fromInt32({token}), pos);
        int32_t next;
        if (pos + 1 < int(tokens.size())) {
            next = tokens[size_t(pos) + 1];
        } else {
            const float* row = logits.data<float>();
            next = 0;
            for (int32_t i = 1; i < vocab; ++i)
                if (row[i] > row[next]) next = i;
            ++out.generated;
        }
        if (next == 1) break;
        std::string piece = next == 2 ? "\n</s>\n" : tok.decodeToken(next);
        if (token == 1 && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);
        const bool loneUnprintable = piece.size() == 1 && !(std::isprint(static_cast<unsigned char>(piece[0])) ||
                                                            std::isspace(static_cast<unsigned char>(piece[0])));
        if (!loneUnprintable) out.text += piece;
        token = next;
    }
    out.text += "\n";
    return out;
}

std::vector<std::string> prompts() {
    std::vector<std::string> out;
    std::istringstream in(readFile(kDir / "goldens" / "prompts.txt"));
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

}  // namespace

TEST_CASE("llama2.c checkpoints are recognised and read as their version says", "[llama2c]") {
    const Model legacy = loadModel((kDir / "legacy.bin").string());
    CHECK(legacy.format == "llama2.c legacy checkpoint (run.c)");
    CHECK(legacy.args.dim == 32);
    CHECK(legacy.args.ffnHiddenDim() == 96);
    CHECK(legacy.args.n_kv_heads == 2);
    CHECK(legacy.args.vocab_size == 4096);
    CHECK(legacy.args.max_seq_len == 256);
    CHECK(legacy.weightsDType() == "F32");
    // An own classifier: output.weight is not the embedding table.
    CHECK(legacy.tensor("output.weight", {4096, 32}).rawData() != legacy.tensor("tok_embeddings.weight", {4096, 32}).rawData());
    // Weights are views into the mapped file: the first embedding value sits right after the 28-byte header.
    const std::string bytes = readFile(kDir / "legacy.bin");
    float first;
    std::memcpy(&first, bytes.data() + 28, 4);
    CHECK(legacy.tensor("tok_embeddings.weight", {4096, 32}).floatAt(0) == first);

    const Model v1 = loadModel((kDir / "v1.bin").string());
    CHECK(v1.format == "llama2.c version 1 checkpoint (float32)");
    CHECK(v1.tensor("output.weight", {4096, 32}).rawData() == v1.tensor("tok_embeddings.weight", {4096, 32}).rawData());

    // export.py's float32 scales: Q8_0's float16 scales would change the weights.
    const Model v2 = loadModel((kDir / "v2.bin").string());
    CHECK_THAT(v2.format, Contains("version 2 checkpoint (int8, groups of 32, runq.c), dequantized to F32 while loading (its float32 "
                                   "scales are not float16 values"));
    CHECK(v2.tensor("layers.0.attention.wq.weight", {32, 32}).dtype() == DType::F32);
    const Model q8 = loadModel((kDir / "v2_f16scales.bin").string());
    CHECK_THAT(q8.format, Contains("(int8, groups of 32, runq.c), read as Q8_0 (the same integers; every scale is a float16 value)"));
    CHECK(q8.tensor("layers.0.attention.wq.weight", {32, 32}).dtype() == DType::Q8_0);
    CHECK(q8.tensor("layers.0.attention_norm.weight", {32}).dtype() == DType::F32);

    const Model gs16 = loadModel((kDir / "v2_gs16.bin").string());
    CHECK_THAT(gs16.format, Contains("dequantized to F32 while loading (group size 16 is not a multiple of Q8_0's 32)"));
    CHECK(gs16.tensor("layers.1.feed_forward.w2.weight", {32, 96}).dtype() == DType::F32);

    // A dry run reads the header and tokenizer only.
    const Model dry = loadModelSource({ModelSource::Kind::Files, (kDir / "legacy.bin").string()}, {.shapesOnly = true});
    CHECK(!dry.tensor("tok_embeddings.weight", {4096, 32}).hasData());
    CHECK_THAT(dry.format, Contains("llama2.c legacy checkpoint"));
}

TEST_CASE("llama2.c's tokenizer.bin encodes as run.c: BOS, a space prefix, best-scoring merges", "[llama2c][tokenizer]") {
    const Model m = loadModel((kDir / "legacy.bin").string());
    const Tokenizer& tok = *m.tokenizer;
    CHECK(tok.bosId() == 1);
    // run.c stops at BOS ("the BOS token delimits sequences"); EOS stops too.
    CHECK(tok.stopIds() == std::vector<int32_t>{1, 2});
    CHECK(tok.decode(tok.encode("Once upon a time")) == " Once upon a time");
    // Bytes no piece covers fall back to <0xNN> tokens (ids 3 + byte, as run.c assumes).
    const std::vector<int32_t> clef = tok.encode("\xF0\x9D\x84\x9E", false);  // U+1D11E, not a piece
    CHECK(clef == std::vector<int32_t>{3994, 3 + 0xF0, 3 + 0x9D, 3 + 0x84, 3 + 0x9E});
    CHECK(tok.decode(clef) == " \xF0\x9D\x84\x9E");
}

// The goldens are llama2.c's own output (make_goldens.sh names the commit); 256 positions, so
// at least 250 generated tokens per prompt, byte for byte.
TEST_CASE("llama2.c checkpoints generate run.c's greedy text", "[llama2c][golden]") {
    for (const std::string model : {"legacy", "v1"}) {
        const Model m = loadModel((kDir / (model + ".bin")).string());
        CHECK(computeDTypeOf(m, {}) == DType::F32);
        const auto texts = prompts();
        for (size_t i = 0; i < texts.size(); ++i) {
            INFO(model << " prompt " << i << ": " << texts[i]);
            const RunCText ours = greedyAsRunC(m, texts[i], 256);
            CHECK(ours.generated >= 200);
            CHECK(ours.text == readFile(kDir / "goldens" / (model + "." + std::to_string(i) + ".txt")));
        }
    }
}

// The CLI's own loop (Session::run, generate/generator.cpp), not the run.c stand-in above: with an
// empty prompt the sequence is BOS alone, and the first piece must lose its leading space.
TEST_CASE("llama2.c checkpoints print run.c's text through the generation loop: no space after BOS", "[llama2c][golden]") {
    // run.c's -n 256 feeds positions 0 to 255 and prints the token after each, the last one needing
    // no position of its own; our loop gives every token its place (generated_sequence.h), so 257
    // positions hold BOS and run.c's 256 tokens.
    Session session;
    session.load({ModelSource::Kind::Files, (kDir / "legacy.bin").string()}, {.maxSeqLen = 257});
    session.settings().prompt = "";
    session.settings().maxTokens = 300;
    const GenerationResult r = session.run();
    CHECK(r.promptTokens == std::vector<int32_t>{1});
    REQUIRE(r.generatedTokens.size() == 256);
    CHECK(r.stopReason == StopReason::ContextFull);
    const Tokenizer& tok = *session.model()->tokenizer;
    const std::string first = tok.decodeToken(r.generatedTokens[0]);
    REQUIRE(first[0] == ' ');
    CHECK(r.text.rfind(first.substr(1), 0) == 0);  // printed without it
    // run.c's printing of the same tokens (safe_printf skips a lone unprintable byte, where our
    // UTF-8 stream writes U+FFFD) is its text, byte for byte.
    std::string runcText;
    int32_t previous = 1;
    for (int32_t id : r.generatedTokens) {
        const std::string piece = tok.decodeAfter(previous, id);
        const bool loneUnprintable = piece.size() == 1 && !(std::isprint(static_cast<unsigned char>(piece[0])) ||
                                                            std::isspace(static_cast<unsigned char>(piece[0])));
        if (!loneUnprintable) runcText += piece;
        previous = id;
    }
    CHECK(runcText + "\n" == readFile(kDir / "goldens" / "legacy.empty.txt"));
}

TEST_CASE("llama2c export writes back the files it read, byte for byte", "[llama2c][convert]") {
    const fs::path legacyOut = scratch("legacy") / "model.bin";
    fs::create_directories(legacyOut.parent_path());
    exportLlama2c(loadModel((kDir / "legacy.bin").string()), legacyOut.string(), 0);
    CHECK(readFile(legacyOut) == readFile(kDir / "legacy.bin"));
    CHECK(readFile(legacyOut.parent_path() / "tokenizer.bin") == readFile(kDir / "tokenizer.bin"));

    const fs::path v1Out = scratch("v1") / "model.bin";
    fs::create_directories(v1Out.parent_path());
    exportLlama2c(loadModel((kDir / "v1.bin").string()), v1Out.string(), 1);
    CHECK(readFile(v1Out) == readFile(kDir / "v1.bin"));
    fs::remove_all(legacyOut.parent_path().parent_path());
}

TEST_CASE("llama2c export refuses what run.c cannot run", "[llama2c][convert][errors]") {
    // The bundled model: Llama 3's tiktoken vocabulary (and RoPE base 500000).
    Model bundled = loadModelSource({ModelSource::Kind::Files, ASSETS_DIR "/model"}, {.shapesOnly = true});
    const fs::path out = scratch("refused") / "model.bin";
    CHECK_THROWS_WITH(exportLlama2c(bundled, out.string(), 0), Contains("rope_theta is 500000, and run.c computes RoPE with base 10000"));
    bundled.args.rope_theta = 10000;
    CHECK_THROWS_WITH(exportLlama2c(bundled, out.string(), 0), Contains("Llama 3's tiktoken"));
    CHECK(!fs::exists(out));
    CHECK(!fs::exists(out.parent_path() / "tokenizer.bin"));
}

TEST_CASE("broken llama2.c files get errors naming the file, field and size", "[llama2c][errors]") {
    const std::string legacy = readFile(kDir / "legacy.bin"), v2 = readFile(kDir / "v2.bin");
    const fs::path dir = scratch("broken");
    fs::create_directories(dir);
    fs::copy_file(kDir / "tokenizer.bin", dir / "tokenizer.bin", fs::copy_options::overwrite_existing);
    auto load = [&](const std::string& bytes) {
        std::ofstream(dir / "model.bin", std::ios::binary | std::ios::trunc) << bytes;
        return loadModel((dir / "model.bin").string());
    };
    CHECK_THROWS_WITH(load(legacy.substr(0, 20)), Contains("model.bin: 20 bytes: a llama2.c checkpoint starts with a 28-byte header"));
    CHECK_THROWS_WITH(load(legacy.substr(0, legacy.size() - 4)),
                      Contains("describes a file of 1155740 bytes, but it has 1155736 bytes"));
    std::string badDim = legacy;
    badDim[0] = 33;  // dim 33: not divisible by 4 heads
    CHECK_THROWS_WITH(load(badDim), Contains("'dim' (33) must be divisible by 'n_heads' (4)"));
    std::string badVersion = v2;
    badVersion[4] = 7;
    CHECK_THROWS_WITH(load(badVersion), Contains("version 7 at offset 4"));
    std::string badGroup = v2;
    badGroup[37] = 5;
    CHECK_THROWS_WITH(load(badGroup), Contains("group size 5 at offset 37 must be positive and divide dim (32)"));

    // The tokenizer: missing, too short, more tokens than the checkpoint's vocabulary.
    const std::string tokenizer = readFile(kDir / "tokenizer.bin");
    fs::remove(dir / "tokenizer.bin");
    CHECK_THROWS_WITH(load(legacy), Contains("needs its tokenizer.bin: none at"));
    std::ofstream(dir / "tokenizer.bin", std::ios::binary) << tokenizer.substr(0, 1000);
    CHECK_THROWS_WITH(load(legacy), Contains("tokenizer.bin: token"));
    std::ofstream(dir / "tokenizer.bin", std::ios::binary | std::ios::trunc) << tokenizer << std::string(12, '\0');
    CHECK_THROWS_WITH(load(legacy), Contains("more tokens than the checkpoint's vocab_size 4096"));
    // --tokenizer names another file.
    CHECK_THROWS_WITH(loadLlama2cModel((kDir / "legacy.bin").string(), (dir / "nope.bin").string()), Contains("none at"));
    fs::remove_all(dir.parent_path());
}

// runq.c multiplies the int8 weights by x quantized to int8 per group (float32 scales); the
// engine multiplies the same weights, as F32 or (float16 scales) as Q8_0 against x quantized per
// 32 with float16 scales. How many bytes agree is printed. The texts are equal for groups of 16
// (F32) and for float16 scales (Q8_0); on v2.bin (export.py's float32 scales, read as F32) runq.c's
// int8 activations part from F32 after 44-1064 bytes, so there only the first generated token
// is required to agree.
TEST_CASE("llama2.c version 2 files generate runq.c's greedy text", "[llama2c][golden]") {
    for (const std::string model : {"v2", "v2_gs16", "v2_f16scales"}) {
        const Model m = loadModel((kDir / (model + ".bin")).string());
        const auto texts = prompts();
        for (size_t i = 0; i < texts.size(); ++i) {
            const std::string ours = greedyAsRunC(m, texts[i], 256).text;
            const std::string theirs = readFile(kDir / "goldens" / (model + "." + std::to_string(i) + ".txt"));
            size_t same = 0;
            while (same < ours.size() && same < theirs.size() && ours[same] == theirs[same]) ++same;
            INFO(model << " prompt " << i << ": " << same << " of " << theirs.size() << " bytes identical");
            if (model == "v2")
                CHECK(same > texts[i].size() + 1);
            else
                CHECK(ours == theirs);
        }
    }
}
