// Checks that a screenshot is a real render, not a blank or black window: the expected size,
// many distinct colours, and (optionally) colours that must appear, e.g. the ends of the
// attention heatmap's colour ramp; or a share of the picture that is not its background (its most
// common colour), so that a panel drawn without its data fails.
// Usage: png_check FILE WIDTH HEIGHT [--colour R,G,B[,TOLERANCE]]... [--covered PERCENT]
//        (WIDTH HEIGHT "any any": any size)
#include <stb_image.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s FILE WIDTH HEIGHT [--colour R,G,B[,TOL]]...\n", argv[0]);
        return 2;
    }
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load(argv[1], &w, &h, &n, 3);
    if (!px) {
        std::fprintf(stderr, "%s: not a readable PNG\n", argv[1]);
        return 1;
    }
    int failures = 0;
    const bool anySize = std::string(argv[2]) == "any" && std::string(argv[3]) == "any";
    if (!anySize && (w != std::atoi(argv[2]) || h != std::atoi(argv[3]))) {
        std::fprintf(stderr, "%s: %dx%d, expected %sx%s\n", argv[1], w, h, argv[2], argv[3]);
        failures++;
    }
    std::map<int, int> counts;
    for (int i = 0; i < w * h; ++i) counts[px[3 * i] << 16 | px[3 * i + 1] << 8 | px[3 * i + 2]]++;
    int background = 0;  // pixels of the most common colour
    for (const auto& entry : counts) background = std::max(background, entry.second);
    // A UI with text and a heatmap has hundreds of colours (antialiased glyphs alone give dozens).
    if (counts.size() < 50) {
        std::fprintf(stderr, "%s: only %zu distinct colours: a blank render?\n", argv[1], counts.size());
        failures++;
    }
    for (int a = 4; a + 1 < argc; a += 2) {
        if (std::string(argv[a]) == "--covered") {
            const double want = std::atof(argv[a + 1]), covered = 100.0 * (w * h - background) / (w * h);
            if (covered < want) {
                std::fprintf(stderr, "%s: %.1f%% of it differs from its background, expected at least %s%%\n", argv[1], covered, argv[a + 1]);
                failures++;
            }
            continue;
        }
        int r, g, b, tol = 6;
        if (std::string(argv[a]) != "--colour" || std::sscanf(argv[a + 1], "%d,%d,%d,%d", &r, &g, &b, &tol) < 3) {
            std::fprintf(stderr, "bad argument %s\n", argv[a]);
            return 2;
        }
        int hits = 0;
        for (int i = 0; i < w * h; ++i)
            hits += std::abs(px[3 * i] - r) <= tol && std::abs(px[3 * i + 1] - g) <= tol && std::abs(px[3 * i + 2] - b) <= tol;
        // A heatmap cell is many pixels; a stray antialiased pixel is not enough.
        if (hits < 20) {
            std::fprintf(stderr, "%s: colour %d,%d,%d (+-%d) appears in %d pixels\n", argv[1], r, g, b, tol, hits);
            failures++;
        }
    }
    stbi_image_free(px);
    if (!failures) std::printf("%s: %dx%d, %zu colours: ok\n", argv[1], w, h, counts.size());
    return failures ? 1 : 0;
}
