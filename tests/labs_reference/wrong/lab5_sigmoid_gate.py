# A student gated with the sigmoid alone, not silu(a) = a * sigmoid(a).
import numpy as np


def swiglu(x, w1, w2, w3):
    return (1 / (1 + np.exp(-(x @ w1.T))) * (x @ w3.T)) @ w2.T
