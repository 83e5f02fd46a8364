// The stage protocol: a mark's fields become the catalog's wording and the recorded tensors.
#include <catch2/catch.hpp>

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
                                  {{"xk", xk}, {"xv", xk}, {"cacheK", cache}, {"endPos", int64_t(10)}});
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
