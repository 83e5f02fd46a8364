# A student put weights 0-15 in the high nibbles and 16-31 in the low ones.
from mutant import mutant

m = mutant("lab10_q4_0.py", 'np.concatenate([qs & 0x0F, qs >> 4], axis=1)', 'np.concatenate([qs >> 4, qs & 0x0F], axis=1)')
dequantize_q4_0, matmul_q4_0 = m.dequantize_q4_0, m.matmul_q4_0
