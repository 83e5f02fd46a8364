#include "batched_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "child_process.h"
#include "median.h"

namespace llama::cli {

std::vector<BatchedBenchRow> parseBatchedBenchTable(const std::string& text) {
    std::vector<BatchedBenchRow> rows;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        // Data rows start with '|' and a number; the header and the |---| rule do not.
        const size_t first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] != '|') continue;
        std::string cells = line.substr(first);
        std::replace(cells.begin(), cells.end(), '|', ' ');
        std::istringstream fields(cells);
        std::string head;
        if (!(fields >> head) || head.find_first_not_of("0123456789") != std::string::npos) continue;
        BatchedBenchRow r;
        r.pp = std::stoi(head);
        double t = 0, s = 0;
        if (!(fields >> r.tg >> r.b >> r.nKV >> r.tPP >> r.sPP >> r.tTG >> r.sTG >> t >> s))
            throw std::runtime_error(fmt::format("llama-batched-bench's row '{}' does not have its ten numbers", line));
        rows.push_back(r);
    }
    if (rows.empty()) throw std::runtime_error("llama-batched-bench printed no table rows");
    return rows;
}

int compareWithBatchedBench(const BatchedBenchComparison& c) {
    const std::vector<std::string> args = {c.batchedBench, "-m", c.model, "-t", std::to_string(c.threads), "-tb", std::to_string(c.threads),
                                           "-c", std::to_string(*std::max_element(c.parallel.begin(), c.parallel.end()) * (c.promptTokens + c.decodeTokens)),
                                           "-b", "2048", "-ub", std::to_string(c.nUbatch), "-npp", std::to_string(c.promptTokens),
                                           "-ntg", std::to_string(c.decodeTokens), "-npl", fmt::format("{}", fmt::join(c.parallel, ","))};
    fmt::print("\nllama.cpp, {} run{}: {}\n", c.repeats, c.repeats == 1 ? "" : "s", fmt::join(args, " "));
    std::fflush(stdout);
    std::vector<std::vector<double>> theirsPP(c.parallel.size()), theirsTG(c.parallel.size());
    for (int r = 0; r < c.repeats; ++r) {
        ProcessResult run;
        std::vector<BatchedBenchRow> rows;
        try {
            run = runProcess(args);
            if (run.exitCode != 0) throw std::runtime_error(fmt::format("it exited with code {}", run.exitCode));
            rows = parseBatchedBenchTable(run.out + run.err);
        } catch (const std::exception& e) {
            fmt::print(stderr, "error: llama-batched-bench gave no figures to compare with: {}\n", e.what());
            if (!run.err.empty()) fmt::print(stderr, "its stderr ends with:\n{}", lastLines(run.err, 15));
            fmt::print(stderr, "Our own figures above stand.\n");
            return 1;
        }
        for (size_t i = 0; i < c.parallel.size(); ++i)
            for (const BatchedBenchRow& row : rows)
                if (row.b == c.parallel[i] && row.pp == c.promptTokens && row.tg == c.decodeTokens) {
                    theirsPP[i].push_back(row.sPP);
                    theirsTG[i].push_back(row.sTG);
                }
    }
    fmt::print("\n{:>4}  {:>16}  {:>12}  {:>8}  {:>16}  {:>12}  {:>8}\n", "B", "llama.cpp PP t/s", "ours PP t/s", "ratio", "llama.cpp TG t/s",
               "ours TG t/s", "ratio");
    for (size_t i = 0; i < c.parallel.size(); ++i) {
        const double pp = median(theirsPP[i]), tg = median(theirsTG[i]);
        auto ratio = [](double ours, double theirs) { return theirs > 0 ? fmt::format("{:.2f}", ours / theirs) : std::string("-"); };
        fmt::print("{:>4}  {:>16.2f}  {:>12.2f}  {:>8}  {:>16.2f}  {:>12.2f}  {:>8}\n", c.parallel[i], pp, c.oursPP[i], ratio(c.oursPP[i], pp), tg,
                   c.oursTG[i], ratio(c.oursTG[i], tg));
    }
    fmt::print("Medians of {} runs each. PP: B prompts of {} tokens in one batch; TG: {} steps of B tokens.\n", c.repeats, c.promptTokens,
               c.decodeTokens);
    return 0;
}

}  // namespace llama::cli
