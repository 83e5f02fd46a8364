# A student wrote wo's gradient as o^T dh (shaped [in, out]) instead of dh^T o ([out, in], the
# weight's own layout); wo is square here, so only the values tell.
from mutant import mutant

block_backward = mutant("lab8_block_backward.py", 'grads["wo"] = dh.T @ o', 'grads["wo"] = o.T @ dh').block_backward
