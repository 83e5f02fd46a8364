# A student reshaped the decoded weights column-first: W's transpose, read as [rows, In].
from mutant import mutant

m = mutant("lab10_q4_0.py", 'w = dequantize_q4_0(blocks).reshape(rows, -1)', 'w = dequantize_q4_0(blocks).reshape(-1, rows).T')
dequantize_q4_0, matmul_q4_0 = m.dequantize_q4_0, m.matmul_q4_0
