#!/usr/bin/python3
"""Draws the course's conceptual diagrams as SVG into docs/figures (standard library only):
white background, dark text at least 16 units high (most of it 17-21) in a viewBox at most 660
wide, tall rather than wide: a phone 390 px wide (366 px of page) shows the smallest text at 9 px
and most at 10-12 px, a desktop page at its full size. Run from anywhere; commit what it writes
(a test checks that docs/figures holds exactly what this script draws).
usage: scripts/draw-diagrams.py [--out DIR]"""
import importlib.util
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "docs", "figures")
INK, GREY, LIGHT = "#1f2430", "#6b7280", "#e5e7eb"
BLUE, ORANGE, GREEN, PURPLE, RED = "#dbeafe", "#fde68a", "#d1fae5", "#ede9fe", "#fecaca"
BLUE_D, ORANGE_D, GREEN_D, PURPLE_D = "#1d4ed8", "#b45309", "#047857", "#6d28d9"
FONT = "font-family=\"DejaVu Sans, Arial, sans-serif\""


class Svg:
    def __init__(self, w, h, title):
        self.w, self.h, self.parts = w, h, []
        self.parts.append(f'<title>{title}</title>')
        self.parts.append(f'<rect width="{w}" height="{h}" fill="#ffffff"/>')

    def rect(self, x, y, w, h, fill, stroke=INK, rx=6, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fill}" stroke="{stroke}" stroke-width="1.5"{d}/>')

    def text(self, x, y, s, size=18, anchor="middle", colour=INK, weight="normal", mono=False):
        fam = 'font-family="DejaVu Sans Mono, monospace"' if mono else FONT
        s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.parts.append(f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" fill="{colour}" '
                          f'font-weight="{weight}" {fam}>{s}</text>')

    def line(self, x1, y1, x2, y2, colour=INK, arrow=True, width=1.8, dash=None):
        m = ' marker-end="url(#arrow)"' if arrow else ""
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}" stroke-width="{width}"{m}{d}/>')

    def path(self, d, colour=INK, fill="none", arrow=False, width=1.8):
        m = ' marker-end="url(#arrow)"' if arrow else ""
        self.parts.append(f'<path d="{d}" stroke="{colour}" fill="{fill}" stroke-width="{width}"{m}/>')

    def box(self, x, y, w, h, label, fill, sub=None, size=18):
        self.rect(x, y, w, h, fill)
        if sub:
            self.text(x + w / 2, y + h / 2 - 3, label, size)
            self.text(x + w / 2, y + h / 2 + 18, sub, size - 2, colour=GREY, mono=True)
        else:
            self.text(x + w / 2, y + h / 2 + 6, label, size)

    def write(self, name):
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.w} {self.h}" width="{self.w}" height="{self.h}">\n'
                '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
                f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{INK}"/></marker></defs>\n')
        with open(os.path.join(OUT, name), "w") as f:
            f.write(head + "\n".join(self.parts) + "\n</svg>\n")
        print("wrote", os.path.join(OUT, name))


def forward_pass():
    s = Svg(600, 946, "The forward pass of the bundled model, with shapes for a 9-token prompt")
    x, w = 150, 300
    s.text(300, 34, "One forward pass (bundled model, 9 tokens)", 21, weight="bold")
    y = 56
    for label, shape, fill in (("token ids", "[9]", LIGHT), ("embedding rows", "[9, 256]", BLUE)):
        s.box(x, y, w, 56, label, fill, shape)
        s.line(300, y + 56, 300, y + 84)
        y += 84
    top = y
    s.rect(40, top, 520, 510, "#f8fafc", GREY, 10, dash="6 4")
    s.text(300, top + 496, "block 1 of 8 (each block: own weights)", 17, colour=GREY)
    by = top + 44
    s.box(x, by, w, 56, "RMSNorm", GREEN, "[9, 256]")
    s.line(300, by + 56, 300, by + 80)
    s.box(x, by + 80, w, 76, "attention: 8 heads", ORANGE, "Q [8,9,32]  K,V [2,9,32]")
    s.line(300, by + 156, 300, by + 180)
    s.box(x, by + 180, w, 40, "+ (residual)", LIGHT)
    s.line(300, by + 220, 300, by + 244)
    s.box(x, by + 244, w, 56, "RMSNorm", GREEN, "[9, 256]")
    s.line(300, by + 300, 300, by + 324)
    s.box(x, by + 324, w, 40, "feed-forward 256→1024→256", PURPLE, size=17)
    s.line(300, by + 364, 300, by + 388)
    s.box(x, by + 388, w, 40, "+ (residual)", LIGHT)
    # the residual stream goes around each half and is added back
    s.path(f"M300 {by - 12} H 80 V {by + 200} H {x - 2}", GREY, arrow=True)
    s.path(f"M300 {by + 232} H 80 V {by + 408} H {x - 2}", GREY, arrow=True)
    s.text(72, by + 110, "x", 18, colour=GREY, anchor="end")
    s.text(72, by + 330, "h", 18, colour=GREY, anchor="end")
    y = top + 510
    s.line(300, by + 428, 300, y + 24)
    s.text(330, y + 18, "× 8 blocks", 18, colour=GREY, anchor="start")
    y += 24
    s.box(x, y, w, 56, "final RMSNorm", GREEN, "[9, 256]")
    s.line(300, y + 56, 300, y + 80)
    s.box(x, y + 80, w, 56, "output projection", BLUE, "logits [9, 4096]")
    s.line(300, y + 136, 300, y + 160)
    s.text(300, y + 180, "last row → next token", 18)
    s.write("forward-pass.svg")


def attention_matrices():
    s = Svg(660, 700, "One attention head as matrices")
    s.text(330, 32, "One head, 9 tokens, HeadDim 32", 21, weight="bold")

    def grid(x, y, rows, cols, cell, fill, mask=False, weights=False):
        for r in range(rows):
            for c in range(cols):
                f = fill
                if mask and c > r:
                    f = "#d1d5db"
                elif weights:
                    f = "#fde68a" if c == r or c == 0 else "#fef3c7"
                s.parts.append(f'<rect x="{x + c * cell}" y="{y + r * cell}" width="{cell}" height="{cell}" fill="{f}" stroke="#ffffff" stroke-width="1"/>')

    # Q times K^T
    grid(20, 90, 9, 4, 14, BLUE)
    s.text(48, 80, "Q", 20, weight="bold")
    s.text(48, 242, "[9, 32]", 17, mono=True)
    s.text(100, 160, "×", 26)
    grid(120, 118, 4, 9, 14, BLUE)
    s.text(183, 108, "Kᵀ", 20, weight="bold")
    s.text(183, 200, "[32, 9]", 17, mono=True)
    s.text(270, 160, "=", 26)
    grid(300, 90, 9, 9, 14, ORANGE)
    s.text(363, 80, "scores", 20, weight="bold")
    s.text(363, 242, "[9, 9]", 17, mono=True)
    s.text(440, 130, "one number per", 17, anchor="start")
    s.text(440, 152, "(query, key) pair", 17, anchor="start")
    s.line(363, 256, 363, 292)
    # scale and mask
    grid(300, 300, 9, 9, 14, ORANGE, mask=True)
    s.text(440, 330, "÷ √32, then the mask:", 17, anchor="start")
    s.text(440, 352, "grey = a later key,", 17, anchor="start")
    s.text(440, 374, "−∞ before the softmax", 17, anchor="start")
    s.line(363, 434, 363, 470)
    grid(300, 478, 9, 9, 14, ORANGE, mask=True, weights=True)
    s.text(440, 508, "softmax per row:", 17, anchor="start")
    s.text(440, 530, "weights ≥ 0,", 17, anchor="start")
    s.text(440, 552, "each row sums to 1", 17, anchor="start")
    s.text(300 - 18, 545, "×", 26, anchor="end")
    grid(160, 478, 9, 4, 14, GREEN)
    s.text(188, 468, "V", 20, weight="bold")
    s.text(188, 630, "[9, 32]", 17, mono=True)
    s.text(363, 630, "= output [9, 32]:", 17)
    s.text(363, 654, "row i mixes the rows of V", 17)
    s.text(363, 678, "by the weights of row i", 17)
    s.write("attention-head-matrices.svg")


def gqa():
    s = Svg(600, 380, "Grouped-query attention: 8 query heads share 2 key/value heads")
    s.text(300, 34, "Grouped-query attention (bundled model)", 21, weight="bold")
    for h in range(8):
        x = 28 + h * 70
        s.box(x, 70, 56, 56, f"Q{h + 1}", BLUE)
    for g in range(2):
        x = 90 + g * 280
        s.box(x, 230, 140, 60, f"K{g + 1}, V{g + 1}", GREEN)
        for h in range(4 * g, 4 * g + 4):
            s.line(56 + h * 70, 128, x + 70, 228, GREY)
    s.text(300, 326, "query head h reads KV head ⌈h / 4⌉ (N_Rep = 4):", 18)
    s.text(300, 352, "the cache holds 2 heads of keys and values, not 8", 18)
    s.write("gqa-sharing.svg")


def rope():
    s = Svg(600, 420, "RoPE rotates each pair of a query or key by position times its frequency")
    s.text(300, 32, "RoPE: each pair turns with the position", 21, weight="bold")
    for k, (cx, freq, label) in enumerate([(160, 0.9, "pair 0: fast (f₀ = 1)"), (440, 0.25, "a later pair: slow")]):
        cy, r = 200, 110
        s.parts.append(f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="none" stroke="{LIGHT}" stroke-width="2"/>')
        s.line(cx - r - 10, cy, cx + r + 10, cy, LIGHT, arrow=False)
        s.line(cx, cy + r + 10, cx, cy - r - 10, LIGHT, arrow=False)
        base = 0.35
        for m in range(4):
            a = base + m * freq
            x2, y2 = cx + r * 0.9 * math.cos(a), cy - r * 0.9 * math.sin(a)
            colour = [BLUE_D, ORANGE_D, GREEN_D, PURPLE_D][m]
            s.line(cx, cy, round(x2, 1), round(y2, 1), colour, width=2.4)
            s.text(round(cx + r * 1.12 * math.cos(a), 1), round(cy - r * 1.12 * math.sin(a) + 6, 1), f"m={m}", 16, colour=colour)
        s.text(cx, 350, label, 18)
    s.text(300, 384, "(x₀, x₁) as x₀ + i·x₁, times e^(i·m·θᵢ): the angle between", 17)
    s.text(300, 406, "a query at m and a key at n depends only on m − n", 17)
    s.write("rope-rotation.svg")


def kv_cache():
    s = Svg(600, 400, "The KV cache grows by one row per decode step")
    s.text(300, 32, "The KV cache of one layer, step by step", 21, weight="bold")
    rows = [("prefill (4 tokens)", 4), ("decode step 1", 5), ("decode step 2", 6)]
    for i, (label, n) in enumerate(rows):
        y = 70 + i * 96
        s.text(20, y + 18, label, 18, anchor="start")
        for p in range(10):
            fill = (ORANGE if p == n - 1 or (i == 0 and p < n) else BLUE) if p < n else "#ffffff"
            s.rect(20 + p * 56, y + 30, 50, 40, fill, GREY, 4)
            if p < n:
                s.text(45 + p * 56, y + 57, f"k{p}", 16, mono=True)
    s.text(300, 362, "orange: written this step; blue: read back; empty: MaxSeqLen", 17)
    s.text(300, 386, "each step computes keys and values only for its new tokens", 17)
    s.write("kv-cache-growing.svg")


def sampler():
    s = Svg(600, 760, "The sampler chain from logits to the next token")
    s.text(300, 32, "From logits to the next token", 21, weight="bold")
    chain = [("logits [4096], float32", LIGHT, None),
             ("penalties", PURPLE, "repeat, frequency, presence"),
             ("top-k", BLUE, "keep the K most likely"),
             ("top-p", BLUE, "shortest prefix with sum ≥ P"),
             ("min-p", BLUE, "p ≥ M × the best one's"),
             ("temperature", ORANGE, "softmax(logits / T)"),
             ("draw (seeded)", GREEN, "--seed: same text each run")]
    y = 56
    for i, (label, fill, sub) in enumerate(chain):
        s.box(130, y, 340, 64 if sub else 46, label, fill, sub, size=18)
        h = 64 if sub else 46
        if i + 1 < len(chain):
            s.line(300, y + h, 300, y + h + 22)
        y += h + 22
    s.text(300, y + 20, "greedy (temperature 0): the argmax, no draw", 18)
    s.text(300, y + 48, "(llama.cpp's order; our top-p measures the", 17, colour=GREY)
    s.text(300, y + 72, "probabilities at temperature T, as Meta's does)", 17, colour=GREY)
    s.write("sampler-chain.svg")


def quant_block():
    s = Svg(620, 420, "The bytes of one Q4_0 block: 32 weights in 18 bytes")
    s.text(310, 32, "One Q4_0 block: 32 weights in 18 bytes", 21, weight="bold")
    cell, x0, y0 = 30, 20, 110
    s.text(x0, 66, "bytes 0-1: the scale d (F16)", 17, anchor="start")
    s.text(x0, 90, "bytes 2-17: two 4-bit weights in each", 17, anchor="start")
    s.rect(x0, y0, 2 * cell, 44, ORANGE, INK, 2)
    s.text(x0 + cell, y0 + 28, "d", 18, mono=True)
    for b in range(16):
        x = x0 + (2 + b) * cell
        s.rect(x, y0, cell, 44, BLUE if b else GREEN, INK, 2)
        s.text(x + cell / 2, y0 + 28, str(b), 16, mono=True)
    bx = x0 + 2 * cell
    s.path(f"M{bx} {y0 + 44} L 150 220 M{bx + cell} {y0 + 44} L 470 220", GREY)
    s.rect(150, 220, 160, 50, GREEN, INK, 2)
    s.rect(310, 220, 160, 50, PURPLE, INK, 2)
    s.text(230, 252, "low nibble", 17)
    s.text(390, 252, "high nibble", 17)
    s.text(230, 298, "→ weight j", 17)
    s.text(390, 298, "→ weight j + 16", 17)
    s.text(310, 346, "weight = d × (nibble − 8), nibble in 0…15", 18, mono=True)
    s.text(310, 380, "18 bytes / 32 weights = 4.5 bits per weight (BF16: 16)", 17)
    s.write("quant-block-q4_0.svg")


def rope_scaling():
    """The four ways chapter 19 compares, computed by chapters/code/rope_scaling.py."""
    spec = importlib.util.spec_from_file_location("rope_scaling", os.path.join(ROOT, "chapters", "code", "rope_scaling.py"))
    rs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rs)
    s = Svg(600, 470, "How four RoPE scaling methods divide each pair's frequency, stretching 8192 positions 8 times")
    s.text(300, 32, "Stretching RoPE 8 times: frequency divided by", 21, weight="bold")
    x0, x1, ytop, ybot = 70, 570, 70, 330
    X = lambda k: round(x0 + k / 63 * (x1 - x0), 1)
    Y = lambda f: round(ybot - math.log2(f) / 3 * (ybot - ytop), 1)
    for f in (1, 2, 4, 8):
        s.line(x0, Y(f), x1, Y(f), LIGHT, arrow=False, width=1.2)
        s.text(x0 - 10, Y(f) + 6, f"{f}", 17, anchor="end", colour=GREY)
    s.line(x0, ybot, x1, ybot, GREY, arrow=False)
    for k in (0, 16, 32, 48, 63):
        s.text(X(k), ybot + 26, str(k), 17, colour=GREY)
    s.text(320, ybot + 52, "pair k (fast ones left, slow ones right)", 17, colour=GREY)
    methods = [("PI", rs.pi, ORANGE_D, "8 4"), ("NTK", rs.ntk, GREEN_D, None), ("YaRN", rs.yarn, PURPLE_D, None),
               ("Llama 3.1", rs.llama31, BLUE_D, None)]
    for i, (name, fn, colour, dash) in enumerate(methods):
        pts = " ".join(f"{X(k)},{Y(rs.base(k) / fn(k, 8.0))}" for k in range(64))
        d = f' stroke-dasharray="{dash}"' if dash else ""
        s.parts.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="3"{d}/>')
        lx = 80 + i * 125
        s.line(lx, 420, lx + 28, 420, colour, arrow=False, width=3, dash=dash)
        s.text(lx + 34, 426, name, 17, anchor="start", colour=colour)
    s.text(300, 456, "1 = the pair kept as trained; 8 = interpolated", 17, colour=GREY)
    s.write("rope-scaling.svg")


def main():
    global OUT
    if "--out" in sys.argv:
        OUT = sys.argv[sys.argv.index("--out") + 1]
    os.makedirs(OUT, exist_ok=True)
    for draw in (forward_pass, attention_matrices, gqa, rope, kv_cache, sampler, quant_block, rope_scaling):
        draw()


if __name__ == "__main__":
    main()
