# A student read only a cell's first sequence id: the shared prefix, stored once, is then seen by one sequence.
from mutant import mutant

kv_mask = mutant("lab11_batch_mask.py", 'set(seqs) & set(cseqs)', 'set(seqs) & set(cseqs[:1])').kv_mask
