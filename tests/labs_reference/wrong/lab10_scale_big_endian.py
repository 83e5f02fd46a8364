# A student read the float16 scale big-endian.
from mutant import mutant

m = mutant("lab10_q4_0.py", 'blocks[:, :2].copy()', 'blocks[:, 1::-1].copy()')
dequantize_q4_0, matmul_q4_0 = m.dequantize_q4_0, m.matmul_q4_0
