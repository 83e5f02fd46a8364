"""Lab 11: the mask of a batch of sequences, from the KV cells (chapter 16). Check: chapters/labs/check.py 11"""
import numpy as np


def kv_mask(token_pos, token_seqs, cell_pos, cell_seqs):
    """One ubatch of `llama-walkthrough batch` (llama.cpp's llama_decode): tokens of several
    sequences side by side, and the KV cells that attention reads.

    token_pos: [n_tokens] ints, each token's position in its sequence; token_seqs: a list of
    n_tokens lists, the sequence ids of each token. cell_pos: [n_kv] ints, the position each cell
    holds (-1: an empty cell); cell_seqs: a list of n_kv lists, the sequences each cell belongs to
    (a prefix shared by all prompts is stored once, in every sequence's cells).
    Returns [n_tokens, n_kv] float32: 0 where token i may attend to cell j, -inf elsewhere."""
    raise NotImplementedError("lab 11: write kv_mask")
