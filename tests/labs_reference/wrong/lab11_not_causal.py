# A student let a token see every cell of its sequence, later positions included.
from mutant import mutant

kv_mask = mutant("lab11_batch_mask.py", 'cpos <= pos and set(seqs) & set(cseqs)', 'set(seqs) & set(cseqs)').kv_mask
