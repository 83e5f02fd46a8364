# Lab 7 in float32 throughout, rounding nothing: a correct forward pass that the engine's BF16
# roundings leave a little apart from. It must pass lab 7's checker.
import numpy as np


def rms_norm(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def rope(x, theta):
    seq, heads, hd = x.shape
    angles = np.outer(np.arange(seq), theta ** (-np.arange(0, hd, 2) / hd))
    z = (x[..., 0::2] + 1j * x[..., 1::2]) * np.exp(1j * angles)[:, None, :]
    return np.stack([z.real, z.imag], axis=-1).reshape(x.shape).astype(np.float32)


def forward(weights, params, tokens):
    W, seq = weights, len(tokens)
    dim, n_heads, n_kv = params["dim"], params["n_heads"], params["n_kv_heads"]
    hd, eps = dim // n_heads, params["norm_eps"]
    mask = np.triu(np.full((seq, seq), -np.inf, dtype=np.float32), 1)
    x = W["tok_embeddings.weight"][tokens]
    for layer in range(params["n_layers"]):
        p = f"layers.{layer}."
        h = rms_norm(x, W[p + "attention_norm.weight"], eps)
        q = rope((h @ W[p + "attention.wq.weight"].T).reshape(seq, n_heads, hd), params["rope_theta"])
        k = rope((h @ W[p + "attention.wk.weight"].T).reshape(seq, n_kv, hd), params["rope_theta"])
        v = (h @ W[p + "attention.wv.weight"].T).reshape(seq, n_kv, hd)
        k, v = np.repeat(k, n_heads // n_kv, axis=1), np.repeat(v, n_heads // n_kv, axis=1)
        scores = np.einsum("shd,thd->hst", q, k) / np.float32(np.sqrt(hd)) + mask
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        out = np.einsum("hst,thd->shd", scores, v).reshape(seq, dim)
        x = x + out @ W[p + "attention.wo.weight"].T
        h = rms_norm(x, W[p + "ffn_norm.weight"], eps)
        gate = h @ W[p + "feed_forward.w1.weight"].T
        x = x + (gate / (1 + np.exp(-gate)) * (h @ W[p + "feed_forward.w3.weight"].T)) @ W[p + "feed_forward.w2.weight"].T
    return rms_norm(x, W["norm.weight"], eps) @ W["output.weight"].T
