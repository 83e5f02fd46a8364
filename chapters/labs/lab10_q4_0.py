"""Lab 10: Q4_0 blocks by hand (chapter 13). Check: chapters/labs/check.py 10"""
import numpy as np


def dequantize_q4_0(blocks):
    """blocks: [n, 18] uint8, n Q4_0 blocks as the GGUF file stores them (chapter 13, figure 13.1):
    bytes 0-1 the scale d, a little-endian float16; bytes 2-17 the 4-bit q of 32 weights, weight j
    (0-15) in the low nibble of byte 2 + j, weight j + 16 in its high nibble.
    Returns [n * 32] float32: w = d * (q - 8), block after block."""
    raise NotImplementedError("lab 10: write dequantize_q4_0")


def matmul_q4_0(x, blocks, rows):
    """x: [seqLen, In] float32; blocks: a Q4_0 matrix of `rows` rows of In weights each, row after
    row, In / 32 blocks per row ([rows * In / 32, 18] uint8). Returns x W^T, [seqLen, rows].
    The engine multiplies without widening the matrix: it rounds x to 8 bits per block of 32 as
    well (llama.cpp's Q8_0) and adds integer products; multiplying your dequantized W in float32
    differs from that by far less than the checker's tolerance."""
    raise NotImplementedError("lab 10: write matmul_q4_0")
