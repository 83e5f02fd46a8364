#pragma once
// Writes what was just rendered (the whole window or one panel's rectangle) as a PNG.
#include <string>

namespace llama::viewer {

struct PixelRect {
    int x, y, w, h;  // framebuffer pixels, origin top-left
};

// Call after rendering and before swapping buffers. Throws std::runtime_error on failure.
void writeFramebufferPng(const std::string& path, PixelRect rect, int framebufferHeight);

}  // namespace llama::viewer
