import numpy as np


def kv_mask(token_pos, token_seqs, cell_pos, cell_seqs):
    mask = np.full((len(token_pos), len(cell_pos)), -np.inf, dtype=np.float32)
    for i, (pos, seqs) in enumerate(zip(token_pos, token_seqs)):
        for j, (cpos, cseqs) in enumerate(zip(cell_pos, cell_seqs)):
            # A cell is seen by a token of a sequence it belongs to, at a position not after the token's.
            if cpos >= 0 and cpos <= pos and set(seqs) & set(cseqs):
                mask[i, j] = 0
    return mask
