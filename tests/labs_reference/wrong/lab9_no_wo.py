# A student returned the heads' concatenation without the wo projection.
from mutant import mutant

decode_attention = mutant("lab9_decode_step.py", 'bf16(np.concatenate(heads, axis=-1) @ weights["wo"].T)', 'bf16(np.concatenate(heads, axis=-1))').decode_attention
