# A student returned NaN logits; NaN must not pass.
import numpy as np


def forward(weights, params, tokens):
    return np.full((len(tokens), params["vocab_size"]), np.nan, dtype=np.float32)
