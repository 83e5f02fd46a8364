#include "screenshot.h"

#include <GL/gl.h>
#include <stb_image_write.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "formats/atomic_output.h"

namespace llama::viewer {

void writeFramebufferPng(const std::string& path, PixelRect r, int framebufferHeight) {
    if (r.w <= 0 || r.h <= 0) throw std::runtime_error("nothing to capture for " + path);
    std::vector<unsigned char> px(size_t(r.w) * r.h * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    // OpenGL's origin is bottom-left.
    glReadPixels(r.x, framebufferHeight - r.y - r.h, r.w, r.h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
    for (size_t i = 3; i < px.size(); i += 4) px[i] = 255;  // the framebuffer's alpha is not meaningful
    stbi_flip_vertically_on_write(1);
    // Encoded through a callback and written as every output is (formats/atomic_output.h):
    // stbi_write_png's own fwrite ignores errors, so /dev/full or a full disk passed as written.
    checkOutputPath("screenshot", path, {});
    AtomicOutputFile file(path);
    auto write = [](void* context, void* data, int size) { static_cast<std::ofstream*>(context)->write(static_cast<const char*>(data), size); };
    if (!stbi_write_png_to_func(write, &file.stream(), r.w, r.h, 4, px.data(), r.w * 4)) throw std::runtime_error("cannot encode " + path);
    file.commit();
}

}  // namespace llama::viewer
