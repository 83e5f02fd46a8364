// The stage protocol: a mark's fields become the catalog's wording and the recorded tensors.
#include <catch2/catch.hpp>

#include <fmt/args.h>
#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "stages/stage_event.h"

using namespace llama;

TEST_CASE("stage event: the catalog's wording is written from the mark's fields", "[stages]") {
    Tensor scores = Tensor::shapeOnly({4, 3, 3}, DType::BF16);
    Tensor mask = Tensor::shapeOnly({3, 3}, DType::BF16);
    StageEvent e = makeStageEvent(StageId::ScoresMask, 2, 0, 0, false, {{"scores", scores}, {"mask", mask}});
    CHECK(e.message == "Calling ml.Add to calculate scores shape([4 3 3]) + mask shape([3 3]) -> tensor scores");
    REQUIRE(e.tensors.size() == 1);
    CHECK(e.tensors[0].name == "scores");
    CHECK(e.tensors[0].tensor == &scores);
    CHECK(e.layer == 2);
}

TEST_CASE("stage event: a skipped operation has its own wording", "[stages]") {
    Tensor scores = Tensor::shapeOnly({4, 1, 7}, DType::BF16);
    std::optional<Tensor> noMask;
    StageEvent e = makeStageEvent(StageId::ScoresMask, 0, 1, 6, true, {{"scores", scores}, {"mask", noMask}});
    CHECK(e.message == "Skipping addition scores + mask");
    CHECK(e.skipped);
}

TEST_CASE("stage event: an absent tensor prints as shape([]) and is not recorded", "[stages]") {
    Tensor inputTensor = Tensor::shapeOnly({1, 64}, DType::BF16), freqsCis = Tensor::shapeOnly({1, 8}, DType::Complex64);
    std::optional<Tensor> noMask;
    StageEvent e = makeStageEvent(StageId::Mask, -1, 1, 5, false, {{"inputTensor", inputTensor}, {"freqsCis", freqsCis}, {"mask", noMask}});
    CHECK(e.message == "LlamaTransformer.prepare finished inputTensor: shape([1 64]), freqsCis: shape([1 8]), mask: shape([])");
    CHECK(e.tensors.empty());
}

TEST_CASE("stage event: place fields come from the event, 1-based layer numbers included", "[stages]") {
    Tensor xk = Tensor::shapeOnly({1, 2, 8}, DType::BF16), cache = Tensor::shapeOnly({16, 2, 8}, DType::BF16);
    StageEvent e = makeStageEvent(StageId::CacheWrite, 3, 2, 9, false,
                                  {{"xk", xk}, {"xv", xk}, {"cacheK", cache}, {"rows", std::string("positions")}, {"firstCell", int64_t(9)},
                                   {"endCell", int64_t(10)}});
    CHECK(e.message == "Writing xk shape([1 2 8]) and xv shape([1 2 8]) into CacheK[3] and CacheV[3] shape([16 2 8]) at positions [9, 10)");
}

TEST_CASE("stage event: a mark without a field its wording or record needs is a programming error naming the stage", "[stages]") {
    Tensor scores = Tensor::shapeOnly({4, 3, 3}, DType::BF16);
    REQUIRE_THROWS_WITH(makeStageEvent(StageId::ScoresMask, 0, 0, 0, false, {{"scores", scores}}), Catch::Contains("scores_mask"));
    REQUIRE_THROWS_WITH(makeStageEvent(StageId::ScoresSoftmax, 0, 0, 0, false, {{"dim", int64_t(2)}}),
                        Catch::Contains("scores_softmax") && Catch::Contains("scores"));
}

TEST_CASE("stage catalog: the stages inside a block are the walkthrough's stages 5 to 18", "[stages]") {
    for (const StageInfo& s : stageCatalog()) {
        INFO(s.key);
        CHECK(s.inBlock == (s.number >= 5 && s.number <= 18));
    }
}

namespace {
// The names in a comma-separated list ("logits,next").
std::vector<std::string> listNames(std::string_view list) {
    std::vector<std::string> names;
    for (std::string_view rest = list; !rest.empty();) {
        const size_t comma = rest.find(',');
        names.emplace_back(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    return names;
}
}  // namespace

TEST_CASE("stage event: every wording of the catalog, cut once, writes what fmt writes from named arguments", "[stages]") {
    // The reference: fmt's own formatting of the wording, given the same values by name.
    const Tensor tensor = Tensor::shapeOnly({2, 3, 5}, DType::BF16);
    std::deque<std::string> names;  // StageField keeps a pointer to its name
    int checked = 0;
    for (const StageInfo& info : stageCatalog())
        for (const bool skipped : {false, true}) {
            const std::string_view wording = skipped ? info.skipped : info.wording;
            if (wording.empty()) continue;
            const std::vector<std::string> recorded = listNames(info.records);
            std::vector<StageField> fields;
            fmt::dynamic_format_arg_store<fmt::format_context> reference;
            const auto given = [&](const std::string& n) {
                return n == "layer" || n == "layerNumber" || n == "step" || n == "startPos" ||
                       std::any_of(fields.begin(), fields.end(), [&](const StageField& f) { return f.name == n; });
            };
            for (size_t open = wording.find('{'); open != std::string_view::npos; open = wording.find('{', open + 1)) {
                const std::string& name = names.emplace_back(wording.substr(open + 1, wording.find_first_of(":}", open) - open - 1));
                if (given(name)) continue;
                if (std::find(recorded.begin(), recorded.end(), name) != recorded.end()) {
                    fields.emplace_back(name.c_str(), tensor);
                    reference.push_back(fmt::arg(name.c_str(), tensor.shapeStr()));
                } else {
                    fields.emplace_back(name.c_str(), "v-" + name + " \"q\"");
                    reference.push_back(fmt::arg(name.c_str(), "v-" + name + " \"q\""));
                }
            }
            for (const std::string& r : recorded)  // tensors recorded but not named in the wording
                if (!given(r)) fields.emplace_back(names.emplace_back(r).c_str(), tensor);
            reference.push_back(fmt::arg("layer", int64_t(2)));
            reference.push_back(fmt::arg("layerNumber", int64_t(3)));
            reference.push_back(fmt::arg("step", int64_t(4)));
            reference.push_back(fmt::arg("startPos", int64_t(5)));
            const StageEvent e = makeStageEvent(info.id, 2, 4, 5, skipped, fields);
            INFO(info.key << (skipped ? " (skipped)" : ""));
            CHECK(e.message == fmt::vformat(wording, reference));
            ++checked;
        }
    CHECK(checked > 40);
}
