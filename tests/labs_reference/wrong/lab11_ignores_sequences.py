# A student masked by position only: every sequence sees the others' cells (no block diagonal).
from mutant import mutant

kv_mask = mutant("lab11_batch_mask.py", 'cpos <= pos and set(seqs) & set(cseqs)', 'cpos <= pos').kv_mask
