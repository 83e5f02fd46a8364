"""Lab 5: the SwiGLU feed-forward (chapter 10, stage 17). Check: chapters/labs/check.py 5"""
import numpy as np


def swiglu(x, w1, w2, w3):
    """x: [seqLen, Dim]; w1 (gate) and w3 (up): [FFNHiddenDim, Dim]; w2 (down): [Dim, FFNHiddenDim],
    each [out, in] as stored in the checkpoint (chapter 5). Returns [seqLen, Dim]:
    (silu(x w1^T) * (x w3^T)) w2^T, with silu(a) = a / (1 + e^-a)."""
    raise NotImplementedError("lab 5: write swiglu")
