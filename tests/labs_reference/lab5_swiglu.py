import numpy as np


def swiglu(x, w1, w2, w3):
    gate = x @ w1.T
    return (gate / (1 + np.exp(-gate)) * (x @ w3.T)) @ w2.T
