# A student masked as in a prefill from position 0: the one query then sees only the first key.
from mutant import mutant

decode_attention = mutant("lab9_decode_step.py", 'values[:, h], start_pos)', 'values[:, h], 0)').decode_attention
