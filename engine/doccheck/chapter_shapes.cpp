#include "doccheck/chapter_shapes.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "tokenizer/pcre2_pattern.h"

namespace llama {

namespace {

// "name: [dims] DTYPE" with an optional "when CONDITION".
DocumentedTensor parseTensorLine(const std::string& text, const std::string& where, int line) {
    static const Pattern pattern(R"(\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(\[[^\]]*\])\s*([A-Za-z0-9]+)\s*(?:when\s+(.+?))?\s*)");
    const auto m = pattern.matchWhole(text);
    if (!m)
        throw std::runtime_error(fmt::format("{}:{}: expected 'name: [dims] DTYPE' (optionally 'when CONDITION'), got '{}'", where,
                                             line, text));
    return {(*m)[1], (*m)[2], (*m)[3], (*m)[4], line};
}

// The KEY of a "<!-- stage: KEY -->" comment on the line.
std::optional<std::string> anchorKey(const std::string& line) {
    size_t open = line.find("<!--");
    size_t close = open == std::string::npos ? open : line.find("-->", open);
    if (close == std::string::npos) return std::nullopt;
    std::istringstream inside(line.substr(open + 4, close - open - 4));
    std::string label, key, extra;
    if (!(inside >> label >> key) || label != "stage:" || (inside >> extra)) return std::nullopt;
    return key;
}

}  // namespace

std::vector<StageSection> parseChapterSections(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open '" + path + "'");
    const std::string file = std::filesystem::path(path).filename().string();

    std::vector<StageSection> sections;
    bool inShapes = false, inOtherFence = false;
    int lineNo = 0;
    for (std::string line; std::getline(in, line);) {
        ++lineNo;
        if (inShapes) {
            if (line.rfind("```", 0) == 0) inShapes = false;
            else if (line.find_first_not_of(" \t") != std::string::npos && line[line.find_first_not_of(" \t")] != '#')
                sections.back().tensors.push_back(parseTensorLine(line, file, lineNo));
            continue;
        }
        if (line.rfind("```", 0) == 0) {
            // Only a fence opened outside any other fence can start a shapes block.
            if (!inOtherFence && line.substr(3) == "shapes") {
                if (sections.empty()) throw std::runtime_error(fmt::format("{}:{}: shapes block before any <!-- stage: ... --> anchor", file, lineNo));
                if (sections.back().hasShapesBlock)
                    throw std::runtime_error(fmt::format("{}:{}: second shapes block for stage '{}'", file, lineNo, sections.back().stageKey));
                sections.back().hasShapesBlock = true;
                inShapes = true;
            } else {
                inOtherFence = !inOtherFence;
            }
            continue;
        }
        if (auto key = anchorKey(line); !inOtherFence && key) sections.push_back({*key, file, lineNo, false, {}});
    }
    if (inShapes) throw std::runtime_error(fmt::format("{}: shapes block of stage '{}' is never closed", file, sections.back().stageKey));
    return sections;
}

std::vector<StageSection> parseChaptersDir(const std::string& dir) {
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.path().extension() == ".md") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    std::vector<StageSection> all;
    for (const auto& f : files) {
        auto sections = parseChapterSections(f);
        all.insert(all.end(), sections.begin(), sections.end());
    }
    return all;
}

std::vector<ExpectedTensor> expectedTensors(const StageSection& section, const ShapeSymbols& symbols) {
    std::vector<ExpectedTensor> out;
    for (const auto& t : section.tensors) {
        try {
            if (!t.condition.empty() && !evaluateCondition(t.condition, symbols)) continue;
            out.push_back({t.name, evaluateShape(t.shape, symbols), t.dtype});
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("{}:{}: {}", section.file, t.line, e.what()));
        }
    }
    return out;
}

}  // namespace llama
