# A student rotated the new query as if it stood at position 0.
from mutant import mutant

decode_attention = mutant("lab9_decode_step.py", 'rope(q.reshape(1, n_heads, hd), start_pos', 'rope(q.reshape(1, n_heads, hd), 0').decode_attention
