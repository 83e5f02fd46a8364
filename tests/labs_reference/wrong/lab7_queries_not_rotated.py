# A student rotated the keys but not the queries.
from mutant import mutant

forward = mutant("right/lab7_composed.py", "q = bf16(rope(q.reshape(seq, n_heads, hd), 0, theta))",
                 "q = q.reshape(seq, n_heads, hd)").forward
