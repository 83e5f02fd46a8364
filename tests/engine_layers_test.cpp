// The engine's folders are layers: the README's Layout table lists them in order, and each one
// includes only its own files and those of the folders above it. Read from the sources, so an
// include that breaks the order (and with it makes a cycle) fails here, naming the file.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>
#include "test_files.h"

namespace fs = std::filesystem;

namespace {

struct Include {
    std::string file;    // engine-relative, e.g. "model/llama_attention.cpp"
    std::string folder;  // engine-relative folder of what it includes, e.g. "ml"
};

// The engine rows of the README's Layout table, top to bottom: "tensor", "ml/kernels", ...
std::vector<std::string> layerOrder(const std::string& readme) {
    const size_t start = readme.find("\n## Layout");
    REQUIRE(start != std::string::npos);
    const size_t end = readme.find("\n## ", start + 1);
    std::istringstream table(readme.substr(start, end == std::string::npos ? std::string::npos : end - start));
    static const std::regex row(R"(^\| `engine/([a-z0-9_/]+)` \|)");
    std::vector<std::string> order;
    std::smatch m;
    for (std::string line; std::getline(table, line);)
        if (std::regex_search(line, m, row)) order.push_back(m[1]);
    return order;
}

// Every quoted include of every engine source that names a file under engine/.
std::vector<Include> engineIncludes(const fs::path& engine) {
    static const std::regex quoted(R"re(#include "([^"]+)")re");
    std::vector<Include> out;
    for (const auto& e : fs::recursive_directory_iterator(engine)) {
        const std::string ext = e.path().extension().string();
        if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".inl")) continue;
        const std::string text = readFile(e.path());
        for (auto it = std::sregex_iterator(text.begin(), text.end(), quoted); it != std::sregex_iterator(); ++it) {
            const fs::path included = (*it)[1].str();
            if (!fs::exists(engine / included)) continue;  // same-folder includes ("x86_kernels.inl") have no folder
            out.push_back({fs::relative(e.path(), engine).string(), included.parent_path().string()});
        }
    }
    return out;
}

// "FILE includes FOLDER, which is below its own folder" for each include that breaks the order.
std::vector<std::string> layerViolations(const std::vector<std::string>& order, const std::vector<Include>& includes) {
    std::map<std::string, size_t> rank;
    for (size_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
    std::vector<std::string> out;
    for (const Include& inc : includes) {
        const std::string from = fs::path(inc.file).parent_path().string();
        if (inc.folder == from) continue;
        if (!rank.count(from) || !rank.count(inc.folder)) {
            out.push_back(inc.file + " includes " + inc.folder + ": a folder the Layout table does not list");
        } else if (rank[inc.folder] > rank[from]) {
            out.push_back(inc.file + " includes " + inc.folder + ", which is below " + from + " in the Layout table");
        }
    }
    return out;
}

}  // namespace

TEST_CASE("engine layers: an include of a folder below its own is reported, one above is not", "[layers]") {
    const std::vector<std::string> order = {"tensor", "ml", "model"};
    CHECK(layerViolations(order, {{"model/a.cpp", "ml"}, {"ml/b.h", "tensor"}, {"ml/c.cpp", "ml"}}).empty());
    CHECK(layerViolations(order, {{"tensor/t.h", "model"}}) ==
          std::vector<std::string>{"tensor/t.h includes model, which is below tensor in the Layout table"});
    CHECK(layerViolations(order, {{"ml/b.h", "trace"}}) ==
          std::vector<std::string>{"ml/b.h includes trace: a folder the Layout table does not list"});
}

TEST_CASE("engine layers: the README's Layout table lists every engine folder, each only once", "[layers]") {
    const std::vector<std::string> order = layerOrder(readFile(fs::path(SOURCE_DIR) / "README.md"));
    std::vector<std::string> folders;
    for (const auto& e : fs::recursive_directory_iterator(fs::path(SOURCE_DIR) / "engine"))
        if (e.is_directory()) folders.push_back(fs::relative(e.path(), fs::path(SOURCE_DIR) / "engine").string());
    std::vector<std::string> listed = order;
    std::sort(listed.begin(), listed.end());
    std::sort(folders.begin(), folders.end());
    CHECK(std::adjacent_find(listed.begin(), listed.end()) == listed.end());
    CHECK(listed == folders);
}

TEST_CASE("engine layers: each engine folder includes only the folders above it in the Layout table", "[layers]") {
    const std::vector<std::string> order = layerOrder(readFile(fs::path(SOURCE_DIR) / "README.md"));
    const std::vector<Include> includes = engineIncludes(fs::path(SOURCE_DIR) / "engine");
    REQUIRE(includes.size() > 100);  // the sources were found
    const std::vector<std::string> violations = layerViolations(order, includes);
    for (const std::string& v : violations) UNSCOPED_INFO(v);
    CHECK(violations.empty());
}
