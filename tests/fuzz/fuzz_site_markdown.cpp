// A chapter as llama-site makes its page: md4c's rendering, chapter links, stage anchors and
// images published from a course folder (with one real figure beside a file that is not one).
// Besides clean errors, every image the page shows must be one the site published.
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
        for (size_t at = page.find("<img src=\""); at != std::string::npos; at = page.find("<img src=\"", at + 1)) {
            const size_t end = page.find('"', at + 10);
            const std::string src = page.substr(at + 10, end - at - 10);
            if (src.find("://") == std::string::npos && !src.starts_with("data:") && !images.files().count(src)) {
                std::fprintf(stderr, "the page shows an image the site did not publish: %s\n", src.c_str());
                std::abort();
            }
        }
    });
}
