"""Lab 1: RMSNorm (chapter 10, stage 6). Check: chapters/labs/check.py 1"""
import numpy as np


def rms_norm(x, weight, eps):
    """x: [seqLen, Dim] float32; weight: [Dim]; eps: params.json's norm_eps.
    Returns [seqLen, Dim]: each row divided by the root of its mean square (plus eps), times weight."""
    raise NotImplementedError("lab 1: write rms_norm")
