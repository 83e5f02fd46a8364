#!/usr/bin/python3
"""A roofline in text (chapter 17): attainable GFLOP/s = min(peak, bandwidth * intensity) on a
log-log grid, with the matrix products of a decode step and of prefills marked on it.

Intensity is FLOPs per byte of weights read: a weight (2 bytes in BF16) takes part in one
multiply and one add per token of the pass, so a pass of n tokens does n FLOPs per BF16 byte;
a Q4_K weight is 144/256 bytes, so a one-token pass does 2 / 0.5625 = 3.6 FLOPs per byte.

A decode step of B sequences (chapter 16) is a B-token pass: --batch B marks it for BF16 (b)
and Q4_K (k), B FLOPs and 3.6 B FLOPs per byte.

usage: roofline.py BANDWIDTH_GBPS PEAK_GFLOPS [--batch B]
"""
import math
import sys


def main():
    bandwidth, peak = float(sys.argv[1]), float(sys.argv[2])
    points = [("d", "decode BF16", 1.0), ("q", "decode Q4_K", 2 / (144 / 256)), ("p", "prefill BF16, 32 tokens", 32.0),
              ("P", "prefill BF16, 512 tokens", 512.0)]
    if len(sys.argv) == 5 and sys.argv[3] == "--batch":
        b = int(sys.argv[4])
        points += [("b", f"decode BF16, {b} sequences", float(b)), ("k", f"decode Q4_K, {b} sequences", b * 2 / (144 / 256))]
    cols, rows = 56, 10
    lo_i, hi_i = math.log10(0.25), math.log10(1024)          # intensity axis, FLOP/byte
    lo_f, hi_f = math.log10(bandwidth * 0.25), math.log10(peak)  # performance axis, GFLOP/s
    col = lambda i: round((math.log10(i) - lo_i) / (hi_i - lo_i) * (cols - 1))
    row = lambda f: round((hi_f - math.log10(f)) / (hi_f - lo_f) * (rows - 1))
    grid = [[" "] * cols for _ in range(rows)]
    for c in range(cols):
        i = 10 ** (lo_i + c / (cols - 1) * (hi_i - lo_i))
        grid[row(min(peak, bandwidth * i))][c] = "-" if bandwidth * i >= peak else "/"
    for mark, _, i in points:
        grid[row(min(peak, bandwidth * i))][col(i)] = mark
    print(f"GFLOP/s (log)   roof: min({peak:g}, {bandwidth:g} GB/s x intensity)")
    for r in grid:
        print("  |" + "".join(r).rstrip())
    print("  +" + "-" * cols)
    print("   0.25" + " " * (cols - 12) + "1024  FLOP/byte (log)")
    print(f"ridge point: {peak / bandwidth:g} FLOP/byte; left of it memory-bound, right of it compute-bound")
    for mark, name, i in points:
        print(f"  {mark} {name}: {i:.3g} FLOP/byte, at most {min(peak, bandwidth * i):.4g} GFLOP/s"
              f" ({'memory' if bandwidth * i < peak else 'compute'}-bound)")


if __name__ == "__main__":
    main()
