#include <catch2/catch.hpp>

#include <algorithm>

#include "ml/bandwidth_probe.h"

TEST_CASE("Bandwidth probe reports every run and their median", "[ml][bandwidth]") {
    // A size that is not a whole number of 4 KiB pages: the probe reads the whole pages only.
    const size_t wholePages = size_t(16) << 20;
    auto report = llama::ml::measureReadBandwidth(wholePages + 1000, 3);
    REQUIRE(report.bytesPerRun == wholePages);
    REQUIRE(report.runsGBps.size() == 3);
    REQUIRE(report.runsSeconds.size() == 3);
    REQUIRE(report.runsSums.size() == 3);
    for (size_t r = 0; r < 3; ++r) {
        INFO("run " << r << ": " << report.runsGBps[r] << " GB/s in " << report.runsSeconds[r] << " s");
        // Every float (all 1.0f) was read exactly once: 4M ones sum exactly in float and double.
        REQUIRE(report.runsSums[r] == double(wholePages / sizeof(float)));
        REQUIRE(report.runsGBps[r] == Approx(double(report.bytesPerRun) / report.runsSeconds[r] / 1e9));
        // Loose enough for any machine, tight enough to catch a wrong unit or a skipped read.
        REQUIRE(report.runsGBps[r] > 0.1);
        REQUIRE(report.runsGBps[r] < 10000);
    }
    std::vector<double> sorted = report.runsGBps;
    std::sort(sorted.begin(), sorted.end());
    REQUIRE(report.medianGBps == sorted[1]);
}
