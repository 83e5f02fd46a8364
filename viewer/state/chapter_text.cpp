#include "state/chapter_text.h"

#include <stdexcept>

#include "io/input_file.h"

namespace llama::viewer {

std::string sectionForKey(const std::string& markdown, std::string_view key) {
    const std::string anchor = "<!-- stage: " + std::string(key) + " -->";
    size_t start = markdown.find(anchor);
    if (start == std::string::npos) return "";
    start += anchor.size();
    size_t end = markdown.find("<!-- stage:", start);
    std::string text = markdown.substr(start, end == std::string::npos ? std::string::npos : end - start);
    size_t first = text.find_first_not_of("\r\n");
    return first == std::string::npos ? "" : text.substr(first);
}

ChapterSection chapterSection(const std::string& chaptersDir, const StageInfo& stage) {
    ChapterSection s;
    s.path = chaptersDir + "/" + std::string(stage.chapter);
    std::string whole;
    try {
        whole = readInputFile(s.path, "chapter");  // a FIFO or a device here would freeze the window
    } catch (const std::invalid_argument&) {
        return s;
    }
    s.fileFound = true;
    s.text = sectionForKey(whole, stage.key);
    s.anchorFound = !s.text.empty();
    if (!s.anchorFound) s.text = std::move(whole);
    return s;
}

}  // namespace llama::viewer
