#include "fonts.h"

#include <imgui.h>
#include <stb_truetype.h>

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace llama::viewer {

namespace {
constexpr uintmax_t kMaxFontBytes = 64u << 20;

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

// What is wrong with `ttf` as a TrueType file, or "" when ImGui may use it. stb_truetype trusts
// the file's offsets (its documentation says to check untrusted fonts first), so the table
// directory is checked here against the file's size before stbtt_InitFont reads through it.
std::string fontProblem(const std::vector<unsigned char>& ttf) {
    auto u16 = [&](size_t at) { return unsigned(ttf[at]) << 8 | ttf[at + 1]; };
    auto u32 = [&](size_t at) { return uint32_t(u16(at)) << 16 | u16(at + 2); };
    if (ttf.size() < 12) return "too short for a TrueType header";
    const int offset = stbtt_GetFontOffsetForIndex(ttf.data(), 0);
    if (offset < 0 || size_t(offset) + 12 > ttf.size()) return "not a TrueType or OpenType font";
    const size_t tables = u16(size_t(offset) + 4);
    if (size_t(offset) + 12 + 16 * tables > ttf.size()) return "its table directory runs past the end of the file";
    for (size_t i = 0; i < tables; ++i) {
        const size_t entry = size_t(offset) + 12 + 16 * i;
        if (uint64_t(u32(entry + 8)) + u32(entry + 12) > ttf.size()) return "a table lies past the end of the file (truncated?)";
    }
    stbtt_fontinfo info;
    if (!stbtt_InitFont(&info, ttf.data(), offset)) return "stb_truetype cannot read it (a table it needs is missing)";
    return "";
}

std::vector<unsigned char> readFontFile(const std::string& path, std::string& problem) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        problem = std::filesystem::exists(path, ec) ? "not a regular file" : "not found";
        return {};
    }
    if (std::filesystem::file_size(path, ec) > kMaxFontBytes) {
        problem = "larger than 64 MB, not a UI font";
        return {};
    }
    std::ifstream in(path, std::ios::binary);
    std::vector<unsigned char> ttf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    problem = fontProblem(ttf);
    return ttf;
}
}  // namespace

const TextFaces& textFaces() { return faces; }

std::string loadUiFont(const std::string& path, float scale, LoadedFont& font) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    ImGuiStyle style;
    ImGui::StyleColorsDark(&style);
    style.ScaleAllSizes(scale);
    ImGui::GetStyle() = style;

    std::string problem;
    const std::vector<unsigned char> ttf = readFontFile(path, problem);
    if (!problem.empty()) {
        ImFontConfig config;
        config.SizePixels = 13.0f * scale;
        faces.mono = io.Fonts->AddFontDefault(&config);  // ImGui's own font is monospaced
        faces.bold = faces.italic = nullptr;
        const std::string note = fmt::format("--font '{}': {}; the built-in font shows ASCII only (install fonts-dejavu-core)", path, problem);
        if (note != font.reported) std::fprintf(stderr, "%s\n", note.c_str());
        font.reported = note;
        return note;
    }
    std::vector<ImWchar>& ranges = font.ranges;
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
