#include "state/chapter_image.h"

#include <fmt/format.h>
#include <stb_image.h>

#include <deque>
#include <filesystem>
#include <mutex>
#include <system_error>

namespace llama::viewer {

namespace fs = std::filesystem;

namespace {
constexpr size_t kKeptImages = 6;  // a screenful of figures and a little scrolling

std::shared_ptr<ChapterImage> decode(const fs::path& path) {
    auto image = std::make_shared<ChapterImage>();
    image->path = path.lexically_normal().string();
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
        image->error = fmt::format("figure '{}' not found", image->path);
        return image;
    }
    if (!fs::is_regular_file(status)) {
        image->error = fmt::format("figure '{}' is not a regular file", image->path);
        return image;
    }
    const uintmax_t bytes = fs::file_size(path, ec);
    if (ec || bytes > kMaxChapterImageBytes) {
        image->error = fmt::format("figure '{}' has {} bytes: at most {} MB are read", image->path, ec ? 0 : bytes, kMaxChapterImageBytes >> 20);
        return image;
    }
    // The course's diagrams are SVG (scripts/draw-diagrams.py), which stb_image does not draw.
    if (path.extension() == ".svg") {
        image->error = fmt::format("diagram '{}' is an SVG drawing: the course website (make site) and GitHub show it", image->path);
        return image;
    }
    int w = 0, h = 0, channels = 0;
    if (!stbi_info(image->path.c_str(), &w, &h, &channels)) {
        image->error = fmt::format("figure '{}' is not an image stb_image reads ({})", image->path, stbi_failure_reason());
        return image;
    }
    if (w <= 0 || h <= 0 || w > kMaxChapterImageSide || h > kMaxChapterImageSide) {
        image->error = fmt::format("figure '{}' is {}x{} pixels: at most {} a side are shown", image->path, w, h, kMaxChapterImageSide);
        return image;
    }
    unsigned char* pixels = stbi_load(image->path.c_str(), &w, &h, &channels, 4);
    if (!pixels) {
        image->error = fmt::format("figure '{}' could not be decoded ({})", image->path, stbi_failure_reason());
        return image;
    }
    image->width = w, image->height = h;
    image->rgba.assign(pixels, pixels + size_t(w) * size_t(h) * 4);
    stbi_image_free(pixels);
    return image;
}
}  // namespace

std::shared_ptr<const ChapterImage> loadChapterImage(const std::string& chaptersDir, const std::string& source) {
    static std::mutex mutex;
    static std::deque<std::shared_ptr<ChapterImage>> kept;  // most recently asked first
    const fs::path path = (fs::path(chaptersDir) / source).lexically_normal();
    std::lock_guard lock(mutex);
    for (auto it = kept.begin(); it != kept.end(); ++it)
        if ((*it)->path == path.string()) {
            auto found = *it;
            kept.erase(it);
            kept.push_front(found);
            return found;
        }
    kept.push_front(decode(path));
    if (kept.size() > kKeptImages) kept.pop_back();
    return kept.front();
}

}  // namespace llama::viewer
