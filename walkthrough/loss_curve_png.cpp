#include "loss_curve_png.h"

#include <fmt/format.h>
#include <stb_easy_font.h>
#include <stb_image_write.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace llama::cli {

namespace {

using Colour = std::array<uint8_t, 3>;
constexpr Colour kInk{40, 40, 40}, kGrid{221, 221, 221}, kTrain{31, 119, 180}, kHeldout{214, 39, 40};

// An RGB picture on white, drawn in pixels.
struct Canvas {
    int w, h;
    std::vector<uint8_t> px;
    Canvas(int w, int h) : w(w), h(h), px(size_t(w) * size_t(h) * 3, 255) {}

    void fill(int x0, int y0, int x1, int y1, Colour c) {  // [x0, x1) x [y0, y1)
        for (int y = std::max(0, y0); y < std::min(h, y1); ++y)
            for (int x = std::max(0, x0); x < std::min(w, x1); ++x) std::copy(c.begin(), c.end(), px.begin() + (size_t(y) * size_t(w) + size_t(x)) * 3);
    }
    // A line `width` pixels wide: a square brush stepped along it.
    void line(double x0, double y0, double x1, double y1, Colour c, int width) {
        const int steps = int(std::ceil(std::max(std::fabs(x1 - x0), std::fabs(y1 - y0)))) + 1;
        for (int i = 0; i <= steps; ++i) {
            const int x = int(std::lround(x0 + (x1 - x0) * i / steps)), y = int(std::lround(y0 + (y1 - y0) * i / steps));
            fill(x - width / 2, y - width / 2, x - width / 2 + width, y - width / 2 + width, c);
        }
    }
    void dot(double cx, double cy, double r, Colour c) {
        for (int y = int(cy - r); y <= int(cy + r) + 1; ++y)
            for (int x = int(cx - r); x <= int(cx + r) + 1; ++x)
                if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) fill(x, y, x + 1, y + 1, c);
    }
    // stb_easy_font's quads, each an axis-aligned rectangle, `scale` pixels to its unit. `anchor`:
    // 0 the text starts at x, 0.5 centred on it, 1 ends at it.
    void text(double x, double y, const std::string& s, Colour c, double scale, double anchor = 0) {
        std::string copy = s;
        const double width = stb_easy_font_width(copy.data()) * scale;
        static std::array<char, 64 * 1024> quads;
        unsigned char colour[4] = {c[0], c[1], c[2], 255};
        const int n = stb_easy_font_print(0, 0, copy.data(), colour, quads.data(), int(quads.size()));
        for (int q = 0; q < n; ++q) {
            // A vertex is x, y, z (floats) and 4 colour bytes.
            const auto* v = reinterpret_cast<const float*>(quads.data() + size_t(q) * 64);
            const double qx0 = v[0], qy0 = v[1], qx1 = v[8], qy1 = v[9];
            const double left = x - width * anchor;
            fill(int(std::lround(left + qx0 * scale)), int(std::lround(y + qy0 * scale)), int(std::lround(left + qx1 * scale)),
                 int(std::lround(y + qy1 * scale)), c);
        }
    }
};

}  // namespace

std::string lossCurvePng(const std::vector<LossRecord>& records, const std::string& title) {
    // The page's drawing at twice its size: crisp on a slide.
    constexpr int W = 1440, H = 880;
    constexpr double left = 130, right = 40, top = 100, bottom = 110, font = 2.5;
    const LossAxes a = lossAxes(records);
    auto x = [&](int step) { return left + (W - left - right) * step / a.lastStep; };
    auto y = [&](double loss) { return top + (H - top - bottom) * (a.high - loss) / (a.high - a.low); };
    Canvas c(W, H);
    for (double v = a.low; v <= a.high + 1e-9; v += 1) {
        c.line(left, y(v), W - right, y(v), kGrid, 2);
        c.text(left - 14, y(v) - 8, fmt::format("{:.0f}", v), kInk, font, 1);
    }
    c.line(left, top, left, H - bottom, kInk, 2);
    c.line(left, H - bottom, W - right, H - bottom, kInk, 2);
    for (int k = 0; k <= 4; ++k) c.text(x(a.lastStep * k / 4), H - bottom + 16, std::to_string(a.lastStep * k / 4), kInk, font, 0.5);
    c.text((W + left) / 2, H - 50, "step", kInk, font, 0.5);
    c.text(16, top - 40, "loss (nats per token)", kInk, font);
    c.text(left, 24, title, kInk, 3.5);
    c.text(W - right - 560, top - 40, "training loss", kTrain, font);
    c.text(W - right - 240, top - 40, "held-out loss", kHeldout, font);
    for (size_t i = 1; i < records.size(); ++i)
        c.line(x(records[i - 1].step), y(records[i - 1].trainLoss), x(records[i].step), y(records[i].trainLoss), kTrain, 4);
    if (records.size() == 1) c.dot(x(records[0].step), y(records[0].trainLoss), 5, kTrain);
    for (const LossRecord& r : records)
        if (r.heldoutLoss) c.dot(x(r.step), y(*r.heldoutLoss), 8, kHeldout);
    std::string png;
    auto write = [](void* context, void* data, int size) { static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size)); };
    if (!stbi_write_png_to_func(write, &png, W, H, 3, c.px.data(), W * 3)) throw std::runtime_error("cannot encode the loss curve as PNG");
    return png;
}

}  // namespace llama::cli
