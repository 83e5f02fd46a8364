# A student returned NaN everywhere; NaN must not pass.
import numpy as np


def rope(x, start_pos, theta):
    return np.full_like(x, np.nan)
