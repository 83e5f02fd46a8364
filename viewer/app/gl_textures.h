#pragma once
// Heatmaps are drawn as OpenGL textures (one quad instead of a rectangle per cell). Textures
// are cached by a key naming what they show and freed when a frame no longer uses them.
#include <GL/gl.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "state/colour_map.h"

namespace llama::viewer {

class TextureCache {
public:
    ~TextureCache();
    // The texture for `key`, uploading `pixels` (RGBA, w*h) only when the key is new. Heatmaps
    // are drawn cell by cell (nearest); `smooth` pictures (a chapter's figures) are filtered.
    GLuint get(const std::string& key, int w, int h, const std::vector<uint8_t>& pixels, bool smooth = false);
    bool has(const std::string& key) const { return textures_.count(key) != 0; }
    GLuint touch(const std::string& key);  // an existing texture, marked as used
    // Call once per frame after rendering: frees textures not used in this frame.
    void endFrame();

private:
    struct Entry {
        GLuint id;
        bool used;
    };
    std::unordered_map<std::string, Entry> textures_;
};

}  // namespace llama::viewer
