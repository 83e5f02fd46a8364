#pragma once
// The figures a chapter shows (`![alt](../docs/figures/map.png)`): read from the chapter's folder
// and decoded to RGBA with stb_image (Debian's libstb), checked first the way every other file
// the viewer reads is: a regular file (a FIFO would block the window), of a size and pixel count
// a figure can have. The last few decoded are kept, so scrolling a figure back into sight does
// not decode it again.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llama::viewer {

struct ChapterImage {
    std::string path;  // as resolved, for messages
    int width = 0, height = 0;
    std::vector<uint8_t> rgba;
    std::string error;  // why it cannot be shown; empty when it can
};

inline constexpr int kMaxChapterImageSide = 8192;
inline constexpr uintmax_t kMaxChapterImageBytes = 32u << 20;

// `source` as written in the chapter, relative to `chaptersDir`; never throws.
std::shared_ptr<const ChapterImage> loadChapterImage(const std::string& chaptersDir, const std::string& source);

}  // namespace llama::viewer
