#include "state/chapter_reader.h"

#include <algorithm>
#include <filesystem>

#include <stdexcept>

#include "io/input_file.h"
#include "state/chapter_text.h"

namespace llama::viewer {

void ChapterReader::load(const std::string& markdown) {
    try {
        doc_ = parseChapterDocument(markdown);
    } catch (const std::exception& e) {
        doc_ = {};
        note_ = source_ + ": " + e.what();
    }
    openChecks_.assign(doc_.checks.size(), false);
    scrollTarget_.clear();
    scrollTop_ = true;
}

void ChapterReader::showStage(const std::string& chaptersDir, const StageInfo& stage) {
    if (hasStage_ && dir_ == chaptersDir && stageKey_ == stage.key) return;
    hasStage_ = true, dir_ = chaptersDir, stageKey_ = std::string(stage.key);
    linkFile_.clear();
    const ChapterSection section = chapterSection(chaptersDir, stage);
    source_ = std::string(stage.chapter);
    note_.clear();
    if (!section.fileFound) note_ = "This chapter is missing: chapters/" + source_ + " was not found.";
    else if (!section.anchorFound) note_ = "No <!-- stage: " + stageKey_ + " --> anchor in it: the whole chapter.";
    load(section.text);
}

std::vector<std::string> ChapterReader::chapterFiles() const {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file(ec) && name.size() > 3 && name.ends_with(".md")) files.push_back(name);
    }
    std::sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) {
        return (a == "README.md") != (b == "README.md") ? a == "README.md" : a < b;
    });
    return files;
}

std::vector<StageId> ChapterReader::stagesIn(const std::string& file) {
    std::vector<StageId> stages;
    for (const StageInfo& info : stageCatalog())
        if (info.chapter == file) stages.push_back(info.id);
    return stages;
}

bool ChapterReader::followLink(const std::string& target) {
    const size_t hash = target.find('#');
    std::string file = target.substr(0, hash);
    const std::string anchor = hash == std::string::npos ? "" : target.substr(hash + 1);
    if (file.rfind("./", 0) == 0) file = file.substr(2);
    if (file.empty()) {
        if (anchor.empty()) return false;
        file = showingLink() ? linkFile_ : source_;  // in the chapter shown; a stage's section is part of it
    }
    // Only chapters/*.md: no folders, no web addresses.
    if (file.find_first_of("/\\:") != std::string::npos || file.size() < 4 || file.substr(file.size() - 3) != ".md") return false;
    std::string text;
    try {
        text = readInputFile(dir_ + "/" + file, "chapter");  // a FIFO or a folder named *.md would freeze or mislead
    } catch (const std::invalid_argument& e) {
        note_ = e.what();
        return false;
    }
    linkFile_ = file;
    source_ = anchor.empty() ? file : file + "#" + anchor;
    note_.clear();
    load(text);
    bool found = anchor.empty();
    for (const ChapterBlock& b : doc_.blocks) found = found || b.anchor == anchor;
    if (!found) note_ = "No section #" + anchor + " in " + file + ": its beginning.";
    else if (!anchor.empty()) scrollTarget_ = anchor, scrollTop_ = false;
    return true;
}

void ChapterReader::backToStage() {
    if (!showingLink()) return;
    hasStage_ = false;
    if (const StageInfo* stage = findStage(stageKey_)) showStage(dir_, *stage);
}

bool ChapterReader::checkOpen(int check) const {
    return check >= 0 && size_t(check) < openChecks_.size() && openChecks_[check];
}

void ChapterReader::toggleCheck(int check) {
    if (check >= 0 && size_t(check) < openChecks_.size()) openChecks_[check] = !openChecks_[check];
}

}  // namespace llama::viewer
