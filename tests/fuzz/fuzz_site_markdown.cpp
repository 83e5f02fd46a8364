// A chapter as llama-site makes its page: md4c's rendering, chapter links, stage anchors and
// images published from a course folder (with one real figure beside a file that is not one).
// Besides clean errors, every image the page shows must be one the site published.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fuzz_input.h"
#include "page/course_site.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    namespace fs = std::filesystem;
    static const fs::path chapters = [] {
        const fs::path dir = fs::path(llama::fuzz::asFile(nullptr, 0, "placeholder")).parent_path() / "chapters";
        fs::create_directories(dir);
        std::ofstream(dir / "figure.png") << "\x89PNG\r\n";
        std::ofstream(dir / "secret.txt") << "not an image\n";
        return dir;
    }();
    const std::string markdown(reinterpret_cast<const char*>(data), size);
    const std::vector<std::string> files = {"README.md", "01-one.md", "02-two.md"};
    return llama::fuzz::expectCleanErrors([&] {
        llama::page::SiteImages images(chapters.string());
        const std::vector<std::string> titles = {"Outline", llama::page::chapterTitle(markdown), "Two"};
        const std::string page = llama::page::chapterPage(markdown, files, titles, 1, images);
        // Every "<img" in any letter case: the form the site writes, with a src it published (or a web or data address).
        std::string lower = page;
        for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
        for (size_t at = lower.find("<img"); at != std::string::npos; at = lower.find("<img", at + 1)) {
            const char next = at + 4 < page.size() ? page[at + 4] : 'x';
            if (!(std::isspace(static_cast<unsigned char>(next)) || next == '/' || next == '>')) continue;  // <imgx> is no image
            const size_t end = page.find('"', at + 10);
            const std::string src = page.compare(at, 10, "<img src=\"") == 0 && end != std::string::npos ? page.substr(at + 10, end - at - 10) : "";
            if (src.find("://") == std::string::npos && !src.starts_with("data:") && !images.files().count(src)) {
                std::fprintf(stderr, "the page shows an image the site did not publish: %s\n", page.substr(at, 80).c_str());
                std::abort();
            }
        }
    });
}
