# A student returned True where a token may attend and False elsewhere, not 0 and -inf.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import lab11_batch_mask as reference  # noqa: E402


def kv_mask(token_pos, token_seqs, cell_pos, cell_seqs):
    return reference.kv_mask(token_pos, token_seqs, cell_pos, cell_seqs) == 0
