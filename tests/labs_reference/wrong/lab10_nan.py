# A student returned NaN everywhere; NaN must not pass.
import numpy as np


def dequantize_q4_0(blocks):
    return np.full(len(blocks) * 32, np.nan, dtype=np.float32)


def matmul_q4_0(x, blocks, rows):
    return np.full((len(x), rows), np.nan, dtype=np.float32)
