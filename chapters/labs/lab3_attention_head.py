"""Lab 3: one attention head with the causal mask (chapter 10, stages 13-14). Check: chapters/labs/check.py 3"""
import numpy as np


def attention_head(q, k, v, start_pos):
    """q: [seqLen, HeadDim], the queries of tokens at positions start_pos, start_pos+1, ...;
    k, v: [start_pos + seqLen, HeadDim], the keys and values of every position so far.
    Returns [seqLen, HeadDim]: softmax(q k^T / sqrt(HeadDim) + mask) v, where the mask keeps a
    query from seeing any key at a later position than its own."""
    raise NotImplementedError("lab 3: write attention_head")
