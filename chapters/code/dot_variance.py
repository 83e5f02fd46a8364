#!/usr/bin/python3
"""Why attention divides by sqrt(HeadDim) (chapter 10): the dot product of two random vectors
whose d components have mean 0 and variance 1 has variance d. Draws 20,000 pairs for each d
(numpy's seeded generator, so every run prints the same) and prints the scores' standard
deviation before and after the division, and how much of a softmax over 16 such scores the
largest one takes on average."""
import numpy as np

rng = np.random.default_rng(2026)
print("   d   std(q.k)   std(q.k/sqrt(d))   top softmax weight: raw  scaled")
for d in (8, 32, 128, 512):
    q = rng.standard_normal((20000, d))
    k = rng.standard_normal((20000, d))
    dots = np.einsum("nd,nd->n", q, k)
    rows = dots[:16000].reshape(1000, 16)  # 1000 rows of 16 scores, as one query against 16 keys

    def top_weight(s):
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return (e.max(axis=1) / e.sum(axis=1)).mean()

    print(f"{d:4d}  {dots.std():9.2f}  {(dots / np.sqrt(d)).std():17.2f}  {top_weight(rows):23.2f}  {top_weight(rows / np.sqrt(d)):6.2f}")
