# A student forgot to subtract 8: read q as a signed value centred on 8 already.
from mutant import mutant

m = mutant("lab10_q4_0.py", '(d * (q - 8))', '(d * q)')
dequantize_q4_0, matmul_q4_0 = m.dequantize_q4_0, m.matmul_q4_0
