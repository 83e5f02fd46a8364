# A student took the scale's magnitude, dropping its sign (chapter 13: d is often negative).
from mutant import mutant

m = mutant("lab10_q4_0.py", '.view(np.float16).astype(np.float32)', '.view(np.float16).astype(np.float32).__abs__()')
dequantize_q4_0, matmul_q4_0 = m.dequantize_q4_0, m.matmul_q4_0
