# A student returned NaN everywhere (e.g. a division by a sum that was zero); NaN must not pass.
import numpy as np


def rms_norm(x, weight, eps):
    return np.full_like(x, np.nan)
