# A student left out the residual's own gradient: dh = dh_norm instead of d_out + dh_norm.
from mutant import mutant

block_backward = mutant("lab8_block_backward.py", "dh = d_out + dh_norm", "dh = dh_norm").block_backward
