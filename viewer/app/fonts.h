#pragma once
// DejaVu Sans for the UI, with every glyph the font has in the Basic Multilingual Plane, so
// token pieces in Latin, Greek, Cyrillic, Hebrew, Arabic... render. DejaVu has no CJK glyphs:
// those show as ImGui's fallback '?'.
#include <imgui.h>

#include <string>
#include <vector>

namespace llama::viewer {

inline constexpr const char* kDefaultFontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
inline constexpr float kBaseFontPixels = 16.0f;

// The Chapter panel's faces, loaded with the UI font at its size: DejaVu Sans Mono (code), Bold,
// Oblique. Each is nullptr when its file is missing (the panel then uses the UI font).
struct TextFaces {
    ImFont* mono = nullptr;
    ImFont* bold = nullptr;
    ImFont* italic = nullptr;
};
const TextFaces& textFaces();

// What outlives one loading of the UI font, kept by the app.
struct LoadedFont {
    std::vector<ImWchar> ranges;  // the glyphs the file has: the atlas keeps a pointer to them
    std::string reported;         // the last note printed: once, not at every change of UI scale
};

// Rebuilds ImGui's font atlas at kBaseFontPixels * scale and rescales the style. Falls back to
// ImGui's built-in font (ASCII only) when the file is missing; returns a note for the status.
std::string loadUiFont(const std::string& path, float scale, LoadedFont& font);

}  // namespace llama::viewer
