# A student stored the repeated (query-head) keys in the cache instead of the KV heads.
from mutant import mutant

decode_attention = mutant("lab9_decode_step.py", 'cache_k = np.concatenate([cache_k, k])', 'cache_k = repeat_kv(np.concatenate([cache_k, k]), n_heads // n_kv)').decode_attention
