// Layers and heads as a person reads them: from 1, as the debug log counts (stages/numbering.h).
#include <catch2/catch.hpp>

#include "stages/numbering.h"

using namespace llama;

TEST_CASE("numbering: layer and head index 0 read as 1", "[stages]") {
    CHECK(layerNumber(0) == 1);
    CHECK(headNumber(0) == 1);
    CHECK(layerLabel(0) == "layer 1");
    CHECK(layerLabel(-1) == "outside the layers");
    CHECK(layerLabel(0, 8) == "layer 1/8");
    CHECK(layerLabel(7, 8) == "layer 8/8");
    CHECK(layerAxisLabel(0) == "L1");
    CHECK(headLabel(3) == "head 4");
}

TEST_CASE("numbering: a typed number becomes an index - 0, negatives and words do not", "[stages]") {
    CHECK(indexFromNumber("1") == 0);
    CHECK(indexFromNumber("12") == 11);
    CHECK_FALSE(indexFromNumber("0"));
    CHECK_FALSE(indexFromNumber("-1"));
    CHECK_FALSE(indexFromNumber("1.5"));
    CHECK_FALSE(indexFromNumber(""));
    CHECK_FALSE(indexFromNumber("two"));
}
