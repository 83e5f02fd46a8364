# A student compared with < : a token cannot see its own cell.
from mutant import mutant

kv_mask = mutant("lab11_batch_mask.py", 'cpos <= pos and', 'cpos < pos and').kv_mask
