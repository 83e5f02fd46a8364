# A student returned NaN everywhere; NaN must not pass.
import numpy as np


def swiglu(x, w1, w2, w3):
    return np.full_like(x, np.nan)
