# A student forgot the final norm before the output projection.
from mutant import mutant

forward = mutant("right/lab7_composed.py", 'bf16(bf16(rms_norm(x, W["norm.weight"], eps)) @', "bf16(x @").forward
