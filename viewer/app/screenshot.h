#pragma once
// Writes what was just rendered (the whole window or one panel's rectangle) as a PNG.
#include <string>

namespace llama::viewer {

struct PixelRect {
    int x, y, w, h;  // framebuffer pixels, origin top-left
};

// Call after rendering and before swapping buffers. Throws std::runtime_error on failure.
void writeFramebufferPng(const std::string& path, PixelRect rect, int framebufferHeight);

// An offscreen framebuffer (a slide drawn at 1920x1080 whatever the window's size); while bound,
// drawing and writeFramebufferPng use it.
class OffscreenTarget {
public:
    OffscreenTarget() = default;
    ~OffscreenTarget();
    OffscreenTarget(const OffscreenTarget&) = delete;
    OffscreenTarget& operator=(const OffscreenTarget&) = delete;
    void bind(int width, int height);
    static void unbind();

private:
    unsigned fbo_ = 0, colour_ = 0;
    int w_ = 0, h_ = 0;
};

}  // namespace llama::viewer
