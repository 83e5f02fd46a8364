#!/usr/bin/python3
"""Exercise 7.4's reference solution: rotate the first two pairs of one head's query by RoPE, as
chapter 7 defines it, and set them next to the engine's rotated values.

usage: (stepper output with `p xq T` at reshape_heads, then at rotary) |
       rope_pair.py POSITION HEAD THETA HEAD_DIM"""
import math
import sys

from stepper_tables import read_tables, show


def rotate_pair(x0, x1, position, pair, theta, head_dim):
    # Pair k turns by theta^(-2k/HeadDim) radians per position: (x0 + i x1) * e^(i * angle).
    angle = position * theta ** (-2 * pair / head_dim)
    c, s = math.cos(angle), math.sin(angle)
    return x0 * c - x1 * s, x0 * s + x1 * c


def main():
    position, head, theta, head_dim = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    before, after = read_tables()[:2]
    x = before[head][:4]
    ours = [*rotate_pair(x[0], x[1], position, 0, theta, head_dim), *rotate_pair(x[2], x[3], position, 1, theta, head_dim)]
    print("before:       ", show(x))
    print("ours:         ", show(ours))
    print("engine (BF16):", show(after[head][:4]))


if __name__ == "__main__":
    main()
