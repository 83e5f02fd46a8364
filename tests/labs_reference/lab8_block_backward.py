"""Lab 8, a reference solution: one transformer block's backward pass, in float64."""
import numpy as np


def _rms(x, eps):
    return 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)


def _rms_norm_backward(x, w, dn, eps):
    """n = x * r * w with r = 1/sqrt(mean(x^2) + eps): returns dx and dw."""
    r = _rms(x, eps)
    dw = np.sum(dn * x * r, axis=0)
    y = dn * w
    dx = r * y - x * r ** 3 * np.mean(y * x, axis=-1, keepdims=True)
    return dx, dw


def _rotation(seq, head_dim, theta, start_pos):
    freqs = 1.0 / theta ** (np.arange(0, head_dim, 2) / head_dim)
    angles = np.outer(np.arange(start_pos, start_pos + seq), freqs)
    return np.exp(1j * angles)  # [seq, head_dim / 2]


def _rotate(x, rot):
    """x: [seq, heads, head_dim], pairs (2i, 2i + 1) as complex numbers, times rot."""
    z = (x[..., 0::2] + 1j * x[..., 1::2]) * rot[:, None, :]
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    return out


def block_backward(x, weights, d_out, params, start_pos=0):
    x = x.astype(np.float64)
    d_out = d_out.astype(np.float64)
    w = {k: v.astype(np.float64) for k, v in weights.items()}
    eps, S = params["norm_eps"], x.shape[0]
    H, KV = params["n_heads"], params["n_kv_heads"]
    hd = params["dim"] // H
    rep = H // KV

    # Forward again, keeping what the backward reads.
    n = x * _rms(x, eps) * w["attention_norm"]
    rot = _rotation(S, hd, params["rope_theta"], start_pos)
    q = _rotate((n @ w["wq"].T).reshape(S, H, hd), rot)
    k = _rotate((n @ w["wk"].T).reshape(S, KV, hd), rot)
    v = (n @ w["wv"].T).reshape(S, KV, hd)
    keys, values = np.repeat(k, rep, axis=1), np.repeat(v, rep, axis=1)  # [S, H, hd]
    scores = np.einsum("shd,thd->hst", q, keys) / np.sqrt(hd)
    scores = scores + np.triu(np.full((S, S), -np.inf), 1)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = np.einsum("hst,thd->shd", p, values).reshape(S, H * hd)
    h = x + o @ w["wo"].T
    n2 = h * _rms(h, eps) * w["ffn_norm"]
    g, u = n2 @ w["w1"].T, n2 @ w["w3"].T
    sig = 1.0 / (1.0 + np.exp(-g))
    a = g * sig * u

    grads = {}
    # The feed-forward and its residual.
    grads["w2"] = d_out.T @ a
    da = d_out @ w["w2"]
    du = da * g * sig
    dg = da * u * sig * (1 + g * (1 - sig))
    grads["w1"], grads["w3"] = dg.T @ n2, du.T @ n2
    dn2 = dg @ w["w1"] + du @ w["w3"]
    dh_norm, grads["ffn_norm"] = _rms_norm_backward(h, w["ffn_norm"], dn2, eps)
    dh = d_out + dh_norm

    # Attention and its residual.
    grads["wo"] = dh.T @ o
    do = (dh @ w["wo"]).reshape(S, H, hd)
    dp = np.einsum("shd,thd->hst", do, values)
    dvalues = np.einsum("hst,shd->thd", p, do)
    dscores = p * (dp - np.sum(dp * p, axis=-1, keepdims=True)) / np.sqrt(hd)
    dq = np.einsum("hst,thd->shd", dscores, keys)
    dkeys = np.einsum("hst,shd->thd", dscores, q)
    dk = dkeys.reshape(S, KV, rep, hd).sum(2)
    dv = dvalues.reshape(S, KV, rep, hd).sum(2)
    dq, dk = _rotate(dq, np.conj(rot)).reshape(S, -1), _rotate(dk, np.conj(rot)).reshape(S, -1)
    dv = dv.reshape(S, -1)
    grads["wq"], grads["wk"], grads["wv"] = dq.T @ n, dk.T @ n, dv.T @ n
    dn = dq @ w["wq"] + dk @ w["wk"] + dv @ w["wv"]
    dx_norm, grads["attention_norm"] = _rms_norm_backward(x, w["attention_norm"], dn, eps)
    return {"dx": dh + dx_norm, "dh": dh, **grads}
