# A student took weight 2j from byte j's low nibble and 2j + 1 from its high nibble.
from mutant import mutant

m = mutant("lab10_q4_0.py", 'np.concatenate([qs & 0x0F, qs >> 4], axis=1)', 'np.stack([qs & 0x0F, qs >> 4], axis=2).reshape(len(qs), 32)')
dequantize_q4_0, matmul_q4_0 = m.dequantize_q4_0, m.matmul_q4_0
