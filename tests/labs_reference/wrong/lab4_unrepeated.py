# A student returned the KV heads unrepeated (n_rep ignored).
import numpy as np


def repeat_kv(kv, n_rep):
    return kv
