# A student let the new token attend to itself only, never reading the cache.
from mutant import mutant

decode_attention = mutant("lab9_decode_step.py", 'keys, values = repeat_kv(cache_k, n_heads // n_kv), repeat_kv(cache_v, n_heads // n_kv)', 'keys, values = repeat_kv(k, n_heads // n_kv), repeat_kv(v.reshape(1, n_kv, hd), n_heads // n_kv)').decode_attention
