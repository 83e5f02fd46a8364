# A student forgot the 1/sqrt(HeadDim) in the scores' gradient.
from mutant import mutant

block_backward = mutant("lab8_block_backward.py", "keepdims=True)) / np.sqrt(hd)", "keepdims=True))").block_backward
