# A student rotated the cached keys again for the new position (they were rotated when written).
from mutant import mutant

decode_attention = mutant("lab9_decode_step.py", 'cache_k = np.concatenate([cache_k, k])', 'cache_k = np.concatenate([bf16(rope(cache_k, start_pos, params["rope_theta"])), k])').decode_attention
