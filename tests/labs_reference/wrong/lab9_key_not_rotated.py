# A student appended the new key to the cache without rotating it.
from mutant import mutant

decode_attention = mutant("lab9_decode_step.py", 'k = bf16(rope(k.reshape(1, n_kv, hd), start_pos, params["rope_theta"]))', 'k = bf16(k.reshape(1, n_kv, hd))').decode_attention
