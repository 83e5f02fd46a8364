// The chapters cannot drift from the engine: every `shapes` block in chapters/*.md is evaluated
// with the args of real models and compared with the tensors the engine actually emits, for a
// prefill and for decode steps through the KV cache.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <map>
#include <set>

#include "session/model_source.h"
#include "generate/generator.h"
#include "model/synthetic.h"
#include "doccheck/chapter_shapes.h"
#include "formats/gguf/gguf_control_vector.h"

using namespace llama;

namespace {

struct RecordedTensor {
    std::string name;
    Shape shape;
    std::string dtype;
};
struct RecordedEvent {
    StageId stage;
    int step, startPos, layer;
    std::vector<RecordedTensor> tensors;
};

class Recorder : public StageObserver {
public:
    std::vector<RecordedEvent> events;
    void onStage(const StageEvent& e) override {
        RecordedEvent r{e.stage, e.step, e.startPos, e.layer, {}};
        for (const auto& t : e.tensors) r.tensors.push_back({t.name, t.tensor->shape(), dtypeName(t.tensor->dtype())});
        events.push_back(std::move(r));
    }
};

struct Run {
    std::string label;
    ModelArgs args;
    int promptLen = 0;
    int maxSeqLen = 0;
    std::vector<RecordedEvent> events;
};

// A prefill of the prompt plus two decode steps (seqLen 1 at startPos promptLen, promptLen+1).
// `steering`: a control vector's stage too (chapter 20).
Run generate(const std::string& label, const Model& model, bool shapesOnly, std::shared_ptr<const Steering> steering = nullptr) {
    LlamaTransformer transformer(model);
    InferenceContext ctx(model.args, shapesOnly);
    ctx.whatIf.steering = std::move(steering);
    Recorder recorder;
    ctx.addObserver(&recorder);
    Sampler sampler(SamplingSettings{});
    Generator generator(transformer, *model.tokenizer);
    GenerationResult r = generator.generate(ctx, "The quick brown fox", 3, sampler, {});
    REQUIRE(r.decodeSteps >= 1);  // a stop token in the first step would leave decoding untested
    return {label, model.args, int(r.promptTokens.size()), ctx.maxSeqLen, std::move(recorder.events)};
}

// The bundled model, tiny with real weights, and the big presets as shape-only dry runs.
const std::vector<Run>& allRuns() {
    static const std::vector<Run> runs = [] {
        std::vector<Run> out;
        out.push_back(generate("bundled model", loadModel(ASSETS_DIR "/model"), false));
        out.push_back(generate("bundled model with a control vector", loadModel(ASSETS_DIR "/model"), false,
                               loadSteering({{TEST_FIXTURES_DIR "/steer/joy.gguf", 2.0f}}, std::nullopt)));
        for (const auto& preset : syntheticPresets()) {
            bool shapesOnly = preset != "tiny";
            out.push_back(generate("synthetic " + preset, makeSyntheticModel(preset, 7, shapesOnly), shapesOnly));
        }
        return out;
    }();
    return runs;
}

std::string describe(const std::vector<RecordedTensor>& ts) {
    std::string s;
    for (const auto& t : ts) s += fmt::format("{}{}: {} {}", s.empty() ? "" : ", ", t.name, shapeToString(t.shape), t.dtype);
    return "{" + s + "}";
}

}  // namespace

TEST_CASE("chapters: every documented shape equals the engine's, prefill and decode, every model", "[chapters][shapes]") {
    std::map<std::string, StageSection> byKey;
    for (auto& s : parseChaptersDir(CHAPTERS_DIR)) byKey.emplace(s.stageKey, s);

    for (const Run& run : allRuns()) {
        SECTION(run.label) {
            std::vector<std::string> problems;
            std::set<int> steps;
            for (const RecordedEvent& e : run.events) {
                steps.insert(e.step);
                const StageInfo& info = stageInfo(e.stage);
                auto it = byKey.find(std::string(info.key));
                if (it == byKey.end()) {
                    problems.push_back(fmt::format("stage '{}' has no section in chapters/", info.key));
                    continue;
                }
                const int seqLen = e.step == 0 ? run.promptLen : 1;
                auto expected = expectedTensors(it->second, shapeSymbols(run.args, seqLen, e.startPos, run.promptLen, run.maxSeqLen));
                std::vector<RecordedTensor> documented;
                for (auto& t : expected) documented.push_back({t.name, t.shape, t.dtype});
                auto same = [](const RecordedTensor& a, const RecordedTensor& b) {
                    return a.name == b.name && a.shape == b.shape && a.dtype == b.dtype;
                };
                if (!std::equal(documented.begin(), documented.end(), e.tensors.begin(), e.tensors.end(), same))
                    problems.push_back(fmt::format("{}:{} stage '{}' step {} (seqLen {}, startPos {}) layer {}: documented {}, engine {}",
                                                   it->second.file, it->second.line, info.key, e.step, seqLen, e.startPos, e.layer,
                                                   describe(documented), describe(e.tensors)));
            }
            std::string first;
            for (size_t i = 0; i < std::min<size_t>(problems.size(), 15); ++i) first += problems[i] + "\n";
            INFO(run.label << ": " << problems.size() << " problems; the first ones:\n" << first);
            CHECK(problems.empty());
            CHECK(steps.size() >= 2);  // the prefill and at least one decode step were checked
        }
    }
}

TEST_CASE("chapters: every emitted stage has exactly one section, in the chapter the catalog names", "[chapters][shapes]") {
    std::map<std::string, int> sectionCount;
    for (const auto& s : parseChaptersDir(CHAPTERS_DIR)) {
        INFO(s.file << ":" << s.line << " stage '" << s.stageKey << "'");
        const StageInfo* info = findStage(s.stageKey);
        REQUIRE(info != nullptr);            // names a real stage
        CHECK(info->chapter == s.file);      // the catalog points readers to this file
        CHECK(s.hasShapesBlock);             // and the section documents the stage's tensors
        sectionCount[s.stageKey]++;
    }
    std::set<std::string> emitted;
    for (const Run& run : allRuns())
        for (const auto& e : run.events) emitted.insert(std::string(stageInfo(e.stage).key));
    for (const auto& info : stageCatalog()) emitted.insert(std::string(info.key));
    for (const auto& key : emitted) {
        INFO("stage '" << key << "'");
        CHECK(sectionCount[key] == 1);
    }
}
