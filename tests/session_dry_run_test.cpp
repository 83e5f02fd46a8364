// Dry runs of every model format read what describes the model and no weight: GGUF's header
// and metadata, Hugging Face's config.json and tokenizer.json, Meta's params.json and
// tokenizer.model (session_facade_test.cpp).
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>

#include "formats/gguf/gguf_export.h"
#include "formats/hf/hf_export.h"
#include "session/session.h"
#include "bundled_model.h"
#include "test_files.h"

using namespace llama;
namespace fs = std::filesystem;

namespace {

// A dry run of `path`: the model, and how many times the weights' reading reported progress.
std::pair<Model, int> dryRun(const std::string& path) {
    int reads = 0;
    Model m = loadModelSource({ModelSource::Kind::Files, path}, {.shapesOnly = true, .progress = [&](size_t, size_t) { ++reads; }});
    return {std::move(m), reads};
}

void requireShapesOfBundled(const Model& m) {
    REQUIRE(m.args.dim == bundledModel().args.dim);
    REQUIRE(m.args.n_kv_heads == bundledModel().args.n_kv_heads);
    REQUIRE(m.args.vocab_size == bundledModel().args.vocab_size);
    REQUIRE(m.tensors.size() == bundledModel().tensors.size());
    for (const auto& [name, t] : m.tensors) {
        INFO(name);
        CHECK(!t.hasData());
    }
    CHECK(m.format.find("dry run: shape-only weights") != std::string::npos);
}
}  // namespace

TEST_CASE("a dry run of a GGUF file reads its header and metadata, no tensor data", "[session][dryrun][gguf]") {
    TempDir dir("llama_dry_run_test");
    const std::string file = (dir.path / "bundled-q4_k.gguf").string();
    exportGguf(bundledModel(), DType::Q4_K, file);
    const auto [m, reads] = dryRun(file);
    requireShapesOfBundled(m);
    CHECK(reads == 0);  // the file's pages were never read in (a full load reports them)
    CHECK(m.format.starts_with("GGUF v3"));
    for (const auto& [name, t] : m.tensors)
        if (name == "layers.0.attention.wq.weight") CHECK(t.dtype() == DType::Q4_K);

    int fullReads = 0;
    loadModelSource({ModelSource::Kind::Files, file}, {.progress = [&](size_t, size_t) { ++fullReads; }});
    CHECK(fullReads > 0);

    Session s;
    s.load({ModelSource::Kind::Files, file}, {.shapesOnly = true});
    s.settings().maxTokens = 2;
    CHECK(s.run().generatedTokens.size() == 2);
}

TEST_CASE("a dry run of a Hugging Face directory needs only config.json and tokenizer.json", "[session][dryrun][hf]") {
    TempDir dir("llama_dry_run_test");
    exportHf(bundledModel(), (dir.path / "full").string());
    fs::create_directories(dir.path / "no-weights");
    for (const char* f : {"config.json", "tokenizer.json", "tokenizer_config.json"}) fs::copy_file(dir.path / "full" / f, dir.path / "no-weights" / f);
    const std::string path = (dir.path / "no-weights").string();
    CHECK_THROWS(loadModel(path));  // no safetensors: only a dry run can use this directory
    const auto [m, reads] = dryRun(path);
    requireShapesOfBundled(m);
    CHECK(reads == 0);
    CHECK(m.chatTemplate.find("<|start_header_id|>") != std::string::npos);

    fs::remove(dir.path / "no-weights" / "tokenizer.json");
    CHECK_THROWS_WITH(dryRun(path), Catch::Contains("missing tokenizer.json"));
}
