// The formula evaluator behind chapters/ shapes blocks: right answers, and clear errors.
#include <catch2/catch.hpp>

#include "model/synthetic.h"
#include "doccheck/chapter_shapes.h"

using namespace llama;
using Catch::Matchers::Contains;

namespace {
ShapeSymbols llama8b(int64_t seqLen, int64_t startPos) { return shapeSymbols(syntheticArgs("llama3.1-8b"), seqLen, startPos, 22, 2048); }
}  // namespace

TEST_CASE("shape formulas: Llama 3.1 8B sizes", "[trace][formula]") {
    auto s = llama8b(22, 0);
    CHECK(evaluateFormula("HeadDim", s) == 128);
    CHECK(evaluateFormula("N_Rep", s) == 4);
    CHECK(evaluateFormula("FFNHiddenDim", s) == 14336);
    CHECK(evaluateFormula("N_Heads * HeadDim", s) == 4096);
    CHECK(evaluateFormula("HeadDim/2", s) == 64);
    CHECK(evaluateFormula("(startPos + seqLen) * 2 - 4", s) == 40);
    CHECK(evaluateShape("[N_Heads, seqLen, startPos+seqLen]", llama8b(1, 22)) == Shape{32, 1, 23});
    CHECK(evaluateShape("[]", s).empty());
    CHECK(evaluateCondition("seqLen > 1", s));
    CHECK_FALSE(evaluateCondition("seqLen > 1", llama8b(1, 22)));
    CHECK(evaluateCondition("N_Rep != 1", s));
}

TEST_CASE("shape formulas: bad input gives a clear error", "[trace][formula]") {
    auto s = llama8b(22, 0);
    CHECK_THROWS_WITH(evaluateFormula("N_Head * HeadDim", s), Contains("unknown symbol 'N_Head'") && Contains("N_Heads"));
    CHECK_THROWS_WITH(evaluateFormula("seqLen +", s), Contains("the formula ended"));
    CHECK_THROWS_WITH(evaluateFormula("seqLen $ 2", s), Contains("column 8") && Contains("unexpected '$'"));
    CHECK_THROWS_WITH(evaluateFormula("(seqLen + 1", s), Contains("expected ')'"));
    CHECK_THROWS_WITH(evaluateFormula("Dim / (seqLen - 22)", s), Contains("division by zero"));
    CHECK_THROWS_WITH(evaluateFormula("", s), Contains("empty formula"));
    CHECK_THROWS_WITH(evaluateShape("seqLen, Dim", s), Contains("[dim, dim, ...]"));
    CHECK_THROWS_WITH(evaluateCondition("seqLen", s), Contains("needs a comparison"));
}

TEST_CASE("chapter sections: a bad shapes line names the file and line", "[trace][formula]") {
    StageSection section{"qkv", "10-forward-pass.md", 1, true, {{"xq", "[seqLen, NHeads]", "BF16", "", 42}}};
    CHECK_THROWS_WITH(expectedTensors(section, llama8b(22, 0)), Contains("10-forward-pass.md:42") && Contains("unknown symbol 'NHeads'"));
}
