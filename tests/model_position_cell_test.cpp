// Positions and cells (model/position_and_cell.h): the compiler keeps them apart, one sequence
// stores position p in cell p, a batch's log names the cells it writes as cells, and a what-if
// that assumes one sequence is refused on the batch path with its reason.
#include <catch2/catch.hpp>

#include <type_traits>

#include "batch/batch_decode.h"
#include "generate/generator.h"
#include "session/model_source.h"
#include "bundled_model.h"

using namespace llama;

static_assert(!std::is_convertible_v<int, Position> && !std::is_convertible_v<int, Cell>, "a number is not silently a position or a cell");
static_assert(!std::is_convertible_v<Position, Cell> && !std::is_convertible_v<Cell, Position>, "a position is not a cell");

namespace {

// The cache writes' log lines, in order.
struct CacheWrites : StageObserver {
    std::vector<std::string> lines;
    void onStage(const StageEvent& e) override {
        if (e.stage == StageId::CacheWrite && e.layer == 0) lines.push_back(e.message);
    }
};

std::vector<int32_t> cellTokens(const std::string& text) {
    return formatPrompt(PromptMode::Completion, "", text, ChatFormat::Llama3, false).encode(*bundledModel().tokenizer);
}
}  // namespace

TEST_CASE("positions and cells: a batch pass takes a cell, not a number", "[model][positions]") {
    // The batch Forward's slot parameter is a Cell (this cast compiles only so), and neither an int
    // nor a Position becomes one.
    using BatchForward = Tensor (LlamaTransformer::*)(InferenceContext&, const UBatch&, Cell) const;
    STATIC_REQUIRE(std::is_same_v<decltype(static_cast<BatchForward>(&LlamaTransformer::Forward)), BatchForward>);
    STATIC_REQUIRE(!std::is_convertible_v<Position, Cell>);
    STATIC_REQUIRE(soleSequenceCell(Position(7)) == Cell(7));
}

TEST_CASE("positions and cells: one sequence logs positions, a batch logs the cells find_slot chose", "[model][positions][batch]") {
    const LlamaTransformer transformer(bundledModel());
    // One sequence: its positions are its cells.
    {
        InferenceContext ctx(bundledModel().args);
        CacheWrites writes;
        ctx.addObserver(&writes);
        transformer.Forward(ctx, Tensor::fromInt32(cellTokens("And God said")), 0);
        REQUIRE(writes.lines.size() == 1);
        CHECK_THAT(writes.lines[0], Catch::EndsWith("at positions [0, 4)"));
    }
    // Two sequences: sequence 1's three tokens (positions 0-2) take cells 0-2; sequence 2's two
    // tokens, at its own positions 0 and 1, take cells 3 and 4.
    InferenceContext ctx(bundledModel().args);
    CacheWrites writes;
    ctx.addObserver(&writes);
    LlamaBatch first, second;
    for (int i = 0; i < 3; ++i) first.add(cellTokens("And God said")[size_t(i)], i, {1}, i == 2);
    for (int i = 0; i < 2; ++i) second.add(cellTokens("The LORD")[size_t(i)], i, {2}, i == 1);
    llamaDecode(ctx, transformer, first, kDefaultUbatch);
    llamaDecode(ctx, transformer, second, kDefaultUbatch);
    REQUIRE(writes.lines.size() == 2);
    CHECK_THAT(writes.lines[0], Catch::EndsWith("at cells [0, 3)"));
    CHECK_THAT(writes.lines[1], Catch::EndsWith("at cells [3, 5)"));
    CHECK(ctx.Cells.cell(3).pos == 0);  // cell 3 holds sequence 2's position 0
}

TEST_CASE("positions and cells: a what-if on the batch path is refused, saying why", "[model][positions][batch]") {
    const LlamaTransformer transformer(bundledModel());
    InferenceContext ctx(bundledModel().args);
    ctx.whatIf.patch = std::make_shared<ActivationPatch>(ActivationPatch{.layer = 1, .position = 2, .row = std::vector<float>(256, 0.0f)});
    LlamaBatch batch;
    batch.add(cellTokens("And")[0], 0, {1}, true);
    CHECK_THROWS_WITH(llamaDecode(ctx, transformer, batch, kDefaultUbatch),
                      Catch::Contains("a batch's forward pass: no what-if experiment") && Catch::Contains("other sequences' rows"));
    CHECK(ctx.Cells.used() == 0);  // refused before a cell was taken
}
