#include "gl_textures.h"

namespace llama::viewer {

TextureCache::~TextureCache() {
    for (auto& [key, e] : textures_) glDeleteTextures(1, &e.id);
}

GLuint TextureCache::touch(const std::string& key) {
    auto& e = textures_.at(key);
    e.used = true;
    return e.id;
}

GLuint TextureCache::get(const std::string& key, int w, int h, const std::vector<uint8_t>& pixels, bool smooth) {
    if (has(key)) return touch(key);
    GLuint id = 0;
    glGenTextures(1, &id);
    glBindTexture(GL_TEXTURE_2D, id);
    // Nearest for heatmaps: a cell is a value, blurring neighbours together would invent values.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, smooth ? GL_LINEAR : GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, smooth ? GL_LINEAR : GL_NEAREST);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    textures_[key] = {id, true};
    return id;
}

void TextureCache::endFrame() {
    for (auto it = textures_.begin(); it != textures_.end();) {
        if (!it->second.used) {
            glDeleteTextures(1, &it->second.id);
            it = textures_.erase(it);
        } else {
            it->second.used = false;
            ++it;
        }
    }
}

}  // namespace llama::viewer
