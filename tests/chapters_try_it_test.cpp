// The chapters' "Try it" blocks and exercise checks (engine/doccheck/try_it.h) are run against
// the bundled model, so no command or quoted output in chapters/*.md can go stale.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "doccheck/try_it.h"

namespace fs = std::filesystem;
using namespace llama;

namespace {

std::vector<TryItBlock> allBlocks() {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(CHAPTERS_DIR))
        if (e.path().extension() == ".md" && e.path().filename() != "README.md") files.push_back(e.path());  // labs.md too
    std::sort(files.begin(), files.end());
    std::vector<TryItBlock> blocks;
    for (const auto& f : files)
        for (auto& b : parseTryItBlocks(f.string())) blocks.push_back(std::move(b));
    return blocks;
}

struct Ran {
    int exitCode;
    std::string output;
};

// As a reader would: from the repository's top folder (here a fresh folder whose assets/ and
// chapters/ are the repository's), with llama-walkthrough on the PATH, stdout and stderr together.
Ran runBlock(const TryItBlock& b) {
    static int counter = 0;
    const fs::path dir = fs::temp_directory_path() / fmt::format("llama_try_it_{}_{}", getpid(), counter++);
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::create_directory_symlink(ASSETS_DIR, dir / "assets");
    fs::create_directory_symlink(CHAPTERS_DIR, dir / "chapters");
    fs::create_directory_symlink(fs::path(TEST_FIXTURES_DIR).parent_path(), dir / "tests");  // chapter 14's tokenizer
    {
        std::ofstream script(dir / "try-it.sh");
        script << "set -e\n";
        for (const auto& c : b.commands) script << c << "\n";
    }
    const std::string bin = fs::path(WALKTHROUGH_EXE).parent_path().string();
    const std::string cmd = fmt::format("cd '{}' && PATH='{}':\"$PATH\" sh try-it.sh 2>&1", dir.string(), bin);
    FILE* pipe = popen(cmd.c_str(), "r");
    REQUIRE(pipe);
    std::string out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
    const int status = pclose(pipe);
    fs::remove_all(dir);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

}  // namespace

TEST_CASE("chapters: every Try-it block and exercise check prints what the chapter says", "[chapters][try-it]") {
    const auto blocks = allBlocks();
    REQUIRE(!blocks.empty());
    for (const auto& b : blocks) {
        const auto t0 = std::chrono::steady_clock::now();
        const Ran ran = runBlock(b);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const TryItCheck check = checkTryItOutput(b, ran.exitCode, ran.output);
        INFO(fmt::format("{}:{}: {}\n--- printed:\n{}", b.file, b.line, check.problem, ran.output));
        CHECK(check.ok);
        // Blocks are meant to be quick (a few tokens of the bundled model), but a time is not a
        // test result: under sanitizers or on a loaded machine a slow block is reported, not failed.
        if (secs > 10) WARN(fmt::format("{}:{} took {:.1f} s", b.file, b.line, secs));
    }
}

// Every chapter of the course (chapters/README.md): the files NN-name.md; labs.md and
// bibliography.md are pages of the course, not chapters.
TEST_CASE("chapters: each of the course's has Try-it blocks, 2-5 checked exercises, then its references", "[chapters][try-it]") {
    std::map<std::string, std::pair<int, int>> counts;  // file -> (Try-it blocks, exercise checks)
    for (const auto& b : allBlocks()) (b.exercise ? counts[b.file].second : counts[b.file].first)++;
    int chapters = 0;
    for (const auto& e : fs::directory_iterator(CHAPTERS_DIR)) {
        const std::string name = e.path().filename().string();
        if (e.path().extension() != ".md" || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
        ++chapters;
        INFO(name);
        CHECK(counts[name].first >= 1);
        CHECK(counts[name].second >= 2);
        CHECK(counts[name].second <= 5);
        // The exercises end the chapter's teaching, and its references end the chapter: nothing
        // but them after their headings, and at least one link or citation.
        std::ifstream in(e.path());
        std::string line, lastHeading, beforeLast;
        int references = 0;
        while (std::getline(in, line)) {
            if (line.rfind("## ", 0) == 0) beforeLast = std::exchange(lastHeading, line);
            else if (lastHeading == "## References" && line.rfind("- ", 0) == 0) ++references;
        }
        CHECK(beforeLast == "## Exercises");
        CHECK(lastHeading == "## References");
        CHECK(references >= 1);
    }
    CHECK(chapters == 22);
}
