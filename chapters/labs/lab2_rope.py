"""Lab 2: rotary position embeddings in complex form (chapter 7, stage 10). Check: chapters/labs/check.py 2"""
import numpy as np


def rope(x, start_pos, theta):
    """x: [seqLen, heads, HeadDim] float32, the queries (or keys) of tokens at positions
    start_pos, start_pos+1, ...; theta: params.json's rope_theta.
    Returns x rotated: each pair (x[..., 2i], x[..., 2i+1]), read as the complex number
    x[2i] + j x[2i+1], multiplied by e^(j * position * theta^(-2i/HeadDim))."""
    raise NotImplementedError("lab 2: write rope")
