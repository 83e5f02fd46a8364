#!/usr/bin/python3
"""Exercise 10.4's reference solution: softmax with the largest value subtracted first, applied
to one row of the masked scores the stepper prints, next to the engine's softmax of that row.

usage: (stepper output with `p scores H` at scores_mask, then at scores_softmax) | softmax.py ROW"""
import sys

import numpy as np

from stepper_tables import read_tables, show


def softmax(x):
    # e^(x - max) / sum e^(x - max): the same value as e^x / sum e^x, but no term exceeds e^0 = 1,
    # so nothing overflows, and -inf (a masked score) becomes exactly 0.
    e = np.exp(x - np.max(x))
    return e / e.sum()


def main():
    row = int(sys.argv[1])
    masked, engine = read_tables()[:2]
    scores = np.array(masked[row], dtype=np.float32)
    print("masked scores:", show(scores))
    print("ours:         ", show(softmax(scores)))
    print("engine (BF16):", show(engine[row]))
    # Why the max matters: the same row scaled by 1000, in float32, without subtracting it.
    big = scores * np.float32(1000)
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.exp(big) / np.exp(big).sum()
    print("x1000 naive:  ", show(naive))
    print("x1000 ours:   ", show(softmax(big)))


if __name__ == "__main__":
    main()
