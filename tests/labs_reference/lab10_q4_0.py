import numpy as np


def dequantize_q4_0(blocks):
    d = blocks[:, :2].copy().view(np.float16).astype(np.float32)  # [n, 1]
    qs = blocks[:, 2:]
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.float32)  # weights 0-15, then 16-31
    return (d * (q - 8)).reshape(-1)


def matmul_q4_0(x, blocks, rows):
    w = dequantize_q4_0(blocks).reshape(rows, -1)
    return x @ w.T
