#include <catch2/catch.hpp>

#include "ml/bandwidth_probe.h"

TEST_CASE("Bandwidth probe reports every run and their median", "[ml][bandwidth]") {
    auto report = llama::ml::measureReadBandwidth(size_t(16) << 20, 3);
    REQUIRE(report.runsGBps.size() == 3);
    for (double g : report.runsGBps) REQUIRE(g > 0);
    REQUIRE(report.medianGBps > 0);
}
