# A student rotated the gradients of q and k forward again instead of back (rot, not its conjugate).
from mutant import mutant

block_backward = mutant("lab8_block_backward.py", "_rotate(dq, np.conj(rot)).reshape(S, -1), _rotate(dk, np.conj(rot))",
                        "_rotate(dq, rot).reshape(S, -1), _rotate(dk, rot)").block_backward
