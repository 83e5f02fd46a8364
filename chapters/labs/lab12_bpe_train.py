"""Lab 12: learning a byte-level BPE's merges from text (chapter 8). Check: chapters/labs/check.py 12"""


def learn_merges(pieces, n_merges):
    """The first `n_merges` merges that `llama-walkthrough tokenizer-train` (and
    assets/train_tokenizer.py, which made the bundled tokenizer) learns from a text.

    pieces: the text cut by Llama 3's pre-tokenizer, every piece in the order of the text, as str
    (labkit.pretokenize(text) makes them). Each piece starts as its UTF-8 bytes, one token each:
    the single bytes are ranks 0-255, and merge k (counted from 0) makes the token of rank 256 + k.
    Each merge counts the adjacent pairs of tokens inside every piece, never across two pieces,
    over every occurrence of the piece (a pair twice in a piece counts twice: (a, a) in "aaa"
    counts 2), and takes the pair with the highest count; among equal counts, the one whose left
    token has the smallest rank, then whose right token has. Every occurrence of that pair, left
    to right, becomes the new token ("aaa" becomes "aa" "a"), and the next merge counts again.
    Stops early when no piece has two tokens left.
    Returns a list of (left, right, count) per merge: the two tokens' bytes (bytes objects) and
    the pair's count when it was merged."""
    raise NotImplementedError("lab 12: write learn_merges")
