#!/usr/bin/python3
"""Chapter 19: attention computed as flash attention does, one tile of keys and values at a
time with a running maximum, sum and output per query (the online softmax), against the plain
softmax(q k^T / sqrt(d)) v that keeps the whole score matrix. Random vectors, float64.
usage: online_softmax.py [KEYS] [TILE]"""
import sys

import numpy as np


def plain(q, k, v):
    s = q @ k.T / np.sqrt(q.shape[1])
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ v


def tiled(q, k, v, tile):
    m = np.full(q.shape[0], -np.inf)       # largest score so far, per query
    total = np.zeros(q.shape[0])           # sum of e^(score - m)
    out = np.zeros((q.shape[0], v.shape[1]))  # sum of e^(score - m) * value
    for start in range(0, k.shape[0], tile):
        s = q @ k[start:start + tile].T / np.sqrt(q.shape[1])
        m_new = np.maximum(m, s.max(axis=1))
        fix = np.exp(m - m_new)           # rescales what was summed against the old maximum
        e = np.exp(s - m_new[:, None])
        total = total * fix + e.sum(axis=1)
        out = out * fix[:, None] + e @ v[start:start + tile]
        m = m_new
    return out / total[:, None]


def main():
    keys = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    tile = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((n, 128)) for n in (4, keys, keys))
    a, b = plain(q, k, v), tiled(q, k, v, tile)
    print(f"{keys} keys in tiles of {tile}: the largest score matrix held at once is 4 x {min(tile, keys)}"
          f" instead of 4 x {keys}")
    d = np.abs(a - b).max()
    print(f"same output as the plain softmax to 1e-12: {'yes' if d < 1e-12 else 'no'} (largest difference {d:.1e})")


if __name__ == "__main__":
    main()
