# A student forgot the residual around the feed-forward: x = ffn(norm(x)).
from mutant import mutant

forward = mutant("right/lab7_composed.py", "x = bf16(x + bf16(swiglu(", "x = bf16(0 + bf16(swiglu(").forward
