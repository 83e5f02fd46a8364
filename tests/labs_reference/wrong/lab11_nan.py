# A student returned NaN everywhere; NaN must not pass.
import numpy as np


def kv_mask(token_pos, token_seqs, cell_pos, cell_seqs):
    return np.full((len(token_pos), len(cell_pos)), np.nan, dtype=np.float32)
