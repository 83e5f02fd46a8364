#!/usr/bin/python3
"""Exercise 11.4's reference solution: top-p on the probabilities the stepper's `top K` prints,
the shortest prefix of the most likely tokens whose probabilities reach P, renormalized.

usage: (stepper output with `top K` at the sample stage) | top_p.py P"""
import re
import sys

TOP_ROW = re.compile(r'^\s*(\d+)\s+(\d+)\s+(-?[\d.]+)\s+([\d.]+)\s+(".*")$')


def top_p(probabilities, p):
    # Sorted most likely first (as `top` prints them): keep adding until the sum reaches p.
    kept, total = [], 0.0
    for q in probabilities:
        kept.append(q)
        total += q
        if total >= p:
            return [q / total for q in kept]
    raise SystemExit(f"the printed tokens add up to only {total:.4f}: print more with a larger `top K`")


def main():
    p = float(sys.argv[1])
    rows = [m.groups() for m in map(TOP_ROW.match, sys.stdin.read().splitlines()) if m]
    kept = top_p([float(r[3]) for r in rows], p)
    print(f"top-p {p:g} keeps {len(kept)}:")
    for (rank, token_id, logit, prob, piece), q in zip(rows, kept):
        print(f"  {piece:10} p {float(prob):.4f} -> {q:.4f}")


if __name__ == "__main__":
    main()
