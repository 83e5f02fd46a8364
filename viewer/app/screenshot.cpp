#include "screenshot.h"

// OpenGL 3's framebuffer objects: libOpenGL (GLVND) exports them, GL_GLEXT_PROTOTYPES declares them.
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <stb_image_write.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "io/atomic_output.h"

namespace llama::viewer {

void writeFramebufferPng(const std::string& path, PixelRect r, int framebufferHeight) {
    if (r.w <= 0 || r.h <= 0) throw std::runtime_error("nothing to capture for " + path);
    std::vector<unsigned char> px(size_t(r.w) * r.h * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    GLint offscreen = 0;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &offscreen);
    glReadBuffer(offscreen ? GL_COLOR_ATTACHMENT0 : GL_BACK);
    // OpenGL's origin is bottom-left.
    glReadPixels(r.x, framebufferHeight - r.y - r.h, r.w, r.h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
    for (size_t i = 3; i < px.size(); i += 4) px[i] = 255;  // the framebuffer's alpha is not meaningful
    stbi_flip_vertically_on_write(1);
    // Encoded through a callback and written as every output is (io/atomic_output.h):
    // stbi_write_png's own fwrite ignores errors, so /dev/full or a full disk passed as written.
    checkOutputPath("screenshot", path, {});
    AtomicOutputFile file(path);
    auto write = [](void* context, void* data, int size) { static_cast<std::ofstream*>(context)->write(static_cast<const char*>(data), size); };
    if (!stbi_write_png_to_func(write, &file.stream(), r.w, r.h, 4, px.data(), r.w * 4)) throw std::runtime_error("cannot encode " + path);
    file.commit();
}

OffscreenTarget::~OffscreenTarget() {
    if (fbo_) glDeleteFramebuffers(1, &fbo_);
    if (colour_) glDeleteRenderbuffers(1, &colour_);
}

void OffscreenTarget::bind(int width, int height) {
    if (!fbo_ || width != w_ || height != h_) {
        if (!fbo_) glGenFramebuffers(1, &fbo_), glGenRenderbuffers(1, &colour_);
        glBindRenderbuffer(GL_RENDERBUFFER, colour_);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour_);
        if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
            glBindFramebuffer(GL_FRAMEBUFFER, 0);
            throw std::runtime_error("cannot make an offscreen framebuffer for a slide");
        }
        w_ = width, h_ = height;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
}

void OffscreenTarget::unbind() { glBindFramebuffer(GL_FRAMEBUFFER, 0); }

}  // namespace llama::viewer
