// A chapter's figures are read as every other file is: a real figure decodes; a missing file, a
// FIFO, text and a PNG header claiming a picture too large to show each say why instead of blocking or
// allocating gigabytes.
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "state/chapter_image.h"

using namespace llama::viewer;
namespace fs = std::filesystem;

TEST_CASE("chapter figures: the course's figures decode - bad files say why", "[chapter-image]") {
    const std::string chapters = CHAPTERS_DIR;
    const auto map = loadChapterImage(chapters, "../docs/figures/architecture-map.png");
    CHECK(map->error.empty());
    CHECK(map->width > 100);
    CHECK(map->height > 100);
    CHECK(map->rgba.size() == size_t(map->width) * size_t(map->height) * 4);
    CHECK(loadChapterImage(chapters, "./../docs/figures/architecture-map.png") == map);  // kept, not decoded again
    // A diagram of the course is SVG: the panel says where it can be seen instead of failing to decode it.
    CHECK_THAT(loadChapterImage(chapters, "../docs/figures/forward-pass.svg")->error, Catch::Contains("SVG drawing: the course website"));

    const fs::path dir = fs::temp_directory_path() / "llama_chapter_image_test";
    fs::create_directories(dir);
    CHECK_THAT(loadChapterImage(dir.string(), "missing.png")->error, Catch::Contains("not found"));
    const fs::path fifo = dir / "fifo.png";
    fs::remove(fifo);
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THAT(loadChapterImage(dir.string(), "fifo.png")->error, Catch::Contains("not a regular file"));
    std::ofstream(dir / "text.png") << "not a picture\n";
    CHECK_THAT(loadChapterImage(dir.string(), "text.png")->error, Catch::Contains("not an image"));
    // A PNG signature and an IHDR chunk saying 9000 x 9000 pixels (324 MB decoded).
    const unsigned char huge[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0x23, 0x28,
                                  0, 0, 0x23, 0x28, 8, 6, 0, 0, 0, 0, 0, 0, 0};
    std::ofstream(dir / "huge.png", std::ios::binary).write(reinterpret_cast<const char*>(huge), sizeof huge);
    CHECK_THAT(loadChapterImage(dir.string(), "huge.png")->error, Catch::Contains("9000x9000"));
    fs::remove_all(dir);
}
