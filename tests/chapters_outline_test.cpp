// The course outline's plans add up (chapters/README.md): an N-week plan has one row per week,
// 1 to N; each chapter it teaches has its whole exercise range, as the chapter numbers its
// exercises, in the week it is taught; every lab of chapters/labs is set once; and what a chapter
// builds on (the outline's table of prerequisites) is taught in the same week or earlier.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include "test_files.h"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> cells(const std::string& row) {
    std::vector<std::string> out;
    std::stringstream s(row);
    std::string cell;
    std::getline(s, cell, '|');  // before the first '|'
    while (std::getline(s, cell, '|')) out.push_back(std::regex_replace(cell, std::regex(R"(^\s+|\s+$)"), ""));
    if (!out.empty() && out.back().empty()) out.pop_back();
    return out;
}

std::vector<int> numbers(const std::string& text, const std::regex& re) {
    std::vector<int> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) out.push_back(std::stoi((*it)[1]));
    return out;
}

// chapter number -> its exercises: the top-level items of the list under "## Exercises".
std::map<int, int> exerciseCounts() {
    std::map<int, int> counts;
    for (const auto& e : fs::directory_iterator(CHAPTERS_DIR)) {
        const std::string name = e.path().filename().string();
        std::smatch m;
        if (!std::regex_match(name, m, std::regex(R"((\d\d)-.*\.md)"))) continue;
        std::ifstream in(e.path());
        std::string line;
        bool inExercises = false;
        int n = 0;
        while (std::getline(in, line)) {
            if (line.rfind("## ", 0) == 0) inExercises = line == "## Exercises";
            else if (inExercises && std::regex_search(line, std::regex(R"(^\d+\. )"))) ++n;
        }
        counts[std::stoi(m[1])] = n;
    }
    return counts;
}

struct Plan {
    int weeks = 0;
    std::vector<std::vector<std::string>> rows;  // week, lesson, chapters, labs, exercises
};

// The tables under "## The N-week plan" headings, and the prerequisites table.
std::map<int, Plan> plans(const std::string& outline, std::map<int, std::vector<int>>& prerequisites) {
    std::map<int, Plan> out;
    std::stringstream s(outline);
    std::string line, section;
    int weeks = 0;
    while (std::getline(s, line)) {
        std::smatch m;
        if (line.rfind("## ", 0) == 0) {
            section = line;
            weeks = std::regex_match(line, m, std::regex(R"(## The (\d+)-week plan)")) ? std::stoi(m[1]) : 0;
            if (weeks) out[weeks].weeks = weeks;
            continue;
        }
        if (line.rfind("### ", 0) == 0) weeks = 0;  // "Week by week" prose
        if (line.rfind("| ", 0) != 0 || line.find("---") != std::string::npos) continue;
        const auto c = cells(line);
        if (weeks && !c.empty() && c[0] != "week") out[weeks].rows.push_back(c);
        if (section == "## Prerequisites" && c.size() == 2 && c[0] != "chapter")
            prerequisites[std::stoi(c[0])] = numbers(c[1], std::regex(R"((\d+))"));
    }
    return out;
}

}  // namespace

TEST_CASE("chapters: every plan of the outline adds up, week by week", "[chapters][outline]") {
    const std::string outline = readFile(fs::path(CHAPTERS_DIR) / "README.md");
    const auto exercises = exerciseCounts();
    std::map<int, std::vector<int>> prerequisites;
    const auto all = plans(outline, prerequisites);
    REQUIRE(all.size() == 3);
    CHECK(all.count(6) == 1);
    CHECK(all.count(8) == 1);
    CHECK(all.count(10) == 1);
    // Every chapter has its prerequisites stated.
    for (const auto& [chapter, n] : exercises) {
        INFO("chapter " << chapter);
        CHECK(prerequisites.count(chapter) == 1);
    }
    std::set<int> labs;
    for (const auto& e : fs::directory_iterator(fs::path(CHAPTERS_DIR) / "labs")) {
        std::smatch m;
        const std::string name = e.path().filename().string();
        if (std::regex_match(name, m, std::regex(R"(lab(\d+)_.*\.py)"))) labs.insert(std::stoi(m[1]));
    }
    // Numbered from 1 without a gap.
    REQUIRE(!labs.empty());
    REQUIRE(*labs.rbegin() == int(labs.size()));
    // Each lab's chapters, from the table in chapters/labs.md (its last column).
    std::map<int, std::vector<int>> labChapters;
    {
        std::ifstream table(fs::path(CHAPTERS_DIR) / "labs.md");
        const std::regex row(R"(^\| (\d+) \| `lab\d+_.*\| ([\d, ]+) \|$)");
        for (std::string line; std::getline(table, line);) {
            std::smatch m;
            if (std::regex_match(line, m, row)) labChapters[std::stoi(m[1])] = numbers(m[2], std::regex(R"((\d+))"));
        }
    }
    REQUIRE(labChapters.size() == labs.size());

    for (const auto& [weeks, plan] : all) {
        INFO("the " << weeks << "-week plan");
        REQUIRE(int(plan.rows.size()) == weeks);
        std::map<int, int> taughtIn;  // chapter -> week
        std::multiset<int> labsSet;
        for (int w = 0; w < weeks; ++w) {
            const auto& row = plan.rows[w];
            INFO("week " << w + 1 << ": " << (row.size() > 1 ? row[1] : ""));
            REQUIRE(row.size() == 5);
            CHECK(row[0] == std::to_string(w + 1));
            const auto chapters = numbers(row[2], std::regex(R"((\d+))"));
            CHECK(!chapters.empty());
            for (int c : chapters) {
                CHECK(exercises.count(c) == 1);
                CHECK(taughtIn.count(c) == 0);  // taught once
                taughtIn[c] = w + 1;
            }
            for (int l : numbers(row[3], std::regex(R"(lab (\d+))"))) labsSet.insert(l);
            // Exercises: "C.1-C.n" (or "C.1" alone) for exactly the chapters of this week.
            std::map<int, std::pair<int, int>> ranges;
            const std::regex range(R"((\d+)\.(\d+)(?:-(\d+)\.(\d+))?)");
            const std::string& ex = row[4];
            for (auto it = std::sregex_iterator(ex.begin(), ex.end(), range); it != std::sregex_iterator(); ++it) {
                const auto& m = *it;
                const int c = std::stoi(m[1]), first = std::stoi(m[2]);
                const int last = m[3].matched ? std::stoi(m[4]) : first;
                if (m[3].matched) CHECK(std::stoi(m[3]) == c);
                CHECK(ranges.count(c) == 0);
                ranges[c] = {first, last};
            }
            CHECK(ranges.size() == chapters.size());
            for (int c : chapters) {
                INFO("chapter " << c << " has " << (exercises.count(c) ? exercises.at(c) : -1) << " exercises");
                REQUIRE(ranges.count(c) == 1);
                CHECK(ranges[c].first == 1);
                CHECK(ranges[c].second == exercises.at(c));
            }
        }
        // Every lab once whose chapters the plan teaches (training's lab where training is taught).
        std::multiset<int> expected;
        for (int l : labs)
            if (std::all_of(labChapters[l].begin(), labChapters[l].end(), [&](int c) { return taughtIn.count(c) == 1; })) expected.insert(l);
        CHECK(labsSet == expected);
        // What a chapter builds on comes no later than the chapter.
        for (const auto& [chapter, week] : taughtIn)
            for (int p : prerequisites[chapter]) {
                INFO("chapter " << chapter << " (week " << week << ") builds on chapter " << p);
                REQUIRE(taughtIn.count(p) == 1);
                CHECK(taughtIn.at(p) <= week);
            }
        // The longest plan teaches every chapter.
        if (weeks == 10) CHECK(taughtIn.size() == exercises.size());
    }
}

TEST_CASE("chapters: at least half of the exercises ask for a prediction", "[chapters][outline]") {
    int total = 0, predict = 0;
    for (const auto& e : fs::directory_iterator(CHAPTERS_DIR)) {
        if (!std::regex_match(e.path().filename().string(), std::regex(R"(\d\d-.*\.md)"))) continue;
        const std::string text = readFile(e.path());
        const size_t at = text.find("\n## Exercises\n");
        REQUIRE(at != std::string::npos);
        // Each exercise's question: from "N. " to its folded check.
        const std::string ex = text.substr(at);
        const std::regex item(R"(\n\d+\. ([\s\S]*?)<details>)");
        for (auto it = std::sregex_iterator(ex.begin(), ex.end(), item); it != std::sregex_iterator(); ++it) {
            ++total;
            if (std::regex_search((*it)[1].str(), std::regex("[Pp]redict"))) ++predict;
        }
    }
    INFO(predict << " of " << total << " exercises ask for a prediction");
    CHECK(total >= 40);
    CHECK(2 * predict >= total);
}

// The bibliography page (chapters/bibliography.md) lists every reference a chapter ends with,
// word for word, followed by the chapters that cite it.
TEST_CASE("chapters: the bibliography lists every chapter's references", "[chapters][outline]") {
    const std::string bibliography = readFile(fs::path(CHAPTERS_DIR) / "bibliography.md");
    int references = 0;
    for (const auto& e : fs::directory_iterator(CHAPTERS_DIR)) {
        std::smatch m;
        const std::string name = e.path().filename().string();
        if (!std::regex_match(name, m, std::regex(R"((\d\d)-.*\.md)"))) continue;
        const std::string text = readFile(e.path());
        const size_t at = text.find("\n## References\n");
        REQUIRE(at != std::string::npos);
        std::stringstream s(text.substr(at));
        for (std::string line; std::getline(s, line);) {
            if (line.rfind("- ", 0) != 0) continue;
            ++references;
            INFO(name << ": " << line);
            const size_t found = bibliography.find(line + " Chapter");
            REQUIRE(found != std::string::npos);
            // ... and names this chapter among those that cite it.
            const std::string cited = bibliography.substr(found + line.size(), bibliography.find('\n', found) - found - line.size());
            CHECK(std::regex_search(cited, std::regex("[ ,]" + std::to_string(std::stoi(m[1])) + "[,.]")));
        }
    }
    CHECK(references >= 19);
}
