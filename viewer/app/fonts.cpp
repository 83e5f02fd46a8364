#include "fonts.h"

#include <imgui.h>
#include <stb_truetype.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace llama::viewer {

namespace {
// Ranges (pairs, 0-terminated) of the codepoints the font maps to a glyph.
std::vector<ImWchar> fontRanges(const std::vector<unsigned char>& ttf) {
    std::vector<ImWchar> ranges;
    stbtt_fontinfo info;
    if (!stbtt_InitFont(&info, ttf.data(), stbtt_GetFontOffsetForIndex(ttf.data(), 0))) return {0x20, 0xFF, 0};
    int start = -1;
    for (int cp = 0x20; cp <= 0x10000; ++cp) {
        // Surrogates are not characters; ImWchar is 16-bit, so stop at the BMP's end.
        bool has = cp < 0x10000 && !(cp >= 0xD800 && cp <= 0xDFFF) && stbtt_FindGlyphIndex(&info, cp) != 0;
        if (has && start < 0) start = cp;
        if (!has && start >= 0) {
            ranges.push_back(ImWchar(start));
            ranges.push_back(ImWchar(cp - 1));
            start = -1;
        }
    }
    ranges.push_back(0);
    return ranges;
}

TextFaces faces;

// A face beside the UI font; ImGui's atlas reads the file itself.
ImFont* addFace(const std::string& uiPath, const char* file, float pixels, const ImWchar* ranges) {
    const std::string path = std::filesystem::path(uiPath).replace_filename(file).string();
    if (!std::filesystem::exists(path)) return nullptr;
    ImFontConfig config;
    config.OversampleH = 1;
    return ImGui::GetIO().Fonts->AddFontFromFileTTF(path.c_str(), pixels, &config, ranges);
}
}  // namespace

const TextFaces& textFaces() { return faces; }

std::string loadUiFont(const std::string& path, float scale) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    ImGuiStyle style;
    ImGui::StyleColorsDark(&style);
    style.ScaleAllSizes(scale);
    ImGui::GetStyle() = style;

    std::ifstream in(path, std::ios::binary);
    std::vector<unsigned char> ttf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (ttf.empty()) {
        ImFontConfig config;
        config.SizePixels = 13.0f * scale;
        faces.mono = io.Fonts->AddFontDefault(&config);  // ImGui's own font is monospaced
        faces.bold = faces.italic = nullptr;
        return fmt::format("{} not found: the built-in font shows ASCII only (install fonts-dejavu-core)", path);
    }
    // The ranges must outlive the atlas build; the atlas keeps a pointer to them.
    static std::vector<ImWchar> ranges;
    ranges = fontRanges(ttf);
    ImFontConfig config;
    config.OversampleH = 1;  // the atlas holds thousands of glyphs; 1x keeps it small and text stays crisp
    io.Fonts->AddFontFromFileTTF(path.c_str(), kBaseFontPixels * scale, &config, ranges.data());
    // Emphasis and code in the Chapter panel: Latin, Greek, punctuation, arrows and maths, and the
    // block elements (SentencePiece's U+2581), to keep the atlas small.
    static const ImWchar textRanges[] = {0x20, 0x24F, 0x370, 0x3FF, 0x2000, 0x206F, 0x2190, 0x22FF, 0x2500, 0x259F, 0};
    faces.mono = addFace(path, "DejaVuSansMono.ttf", kBaseFontPixels * scale, textRanges);
    faces.bold = addFace(path, "DejaVuSans-Bold.ttf", kBaseFontPixels * scale, textRanges);
    faces.italic = addFace(path, "DejaVuSans-Oblique.ttf", kBaseFontPixels * scale, textRanges);
    io.Fonts->Build();
    return fmt::format("DejaVu Sans {:.0f}px, {} glyph ranges (no CJK in this font)", kBaseFontPixels * scale, ranges.size() / 2);
}

}  // namespace llama::viewer
