#!/usr/bin/env python3
"""Train the small Llama 3 model on the KJV token stream (data/train.npy).

Model code is reference_model.Transformer (use_cache=False, float32).
AdamW, linear warmup then cosine decay to 10% of peak LR. Random windows of
seq_len+1 tokens from the concatenated chapter stream. Checkpoints go to
ckpt/ (not committed); the held-out loss on data/heldout.npy (Jude +
Revelation) is measured every --eval-every steps and logged to ckpt/log.jsonl.
"""
import argparse, json, math, os, sys, time
import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from reference_model import ModelArgs, Transformer


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--n-layers", type=int, default=6)
    p.add_argument("--n-heads", type=int, default=8)
    p.add_argument("--n-kv-heads", type=int, default=2)
    p.add_argument("--multiple-of", type=int, default=32)
    p.add_argument("--ffn-dim-multiplier", type=float, default=None)
    p.add_argument("--norm-eps", type=float, default=1e-5)
    p.add_argument("--rope-theta", type=float, default=500000.0)
    p.add_argument("--seq-len", type=int, default=256)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--min-lr-frac", type=float, default=0.1)
    p.add_argument("--wd", type=float, default=0.1)
    p.add_argument("--eval-every", type=int, default=100)
    p.add_argument("--ckpt-minutes", type=float, default=4.0)
    p.add_argument("--time-budget", type=float, default=0,
                   help="seconds of training; the cosine schedule follows max(step/steps, elapsed/budget) "
                        "so that it always completes within the budget (0 = steps only)")
    p.add_argument("--bf16", action="store_true", help="bf16 autocast for matmuls")
    p.add_argument("--bench", type=int, default=0, help="only time this many steps")
    p.add_argument("--out", default=os.path.join(HERE, "ckpt"))
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--threads", type=int, default=2)
    return p.parse_args()


def model_args(a, vocab_size):
    return ModelArgs(dim=a.dim, n_layers=a.n_layers, n_heads=a.n_heads, n_kv_heads=a.n_kv_heads,
                     vocab_size=vocab_size, multiple_of=a.multiple_of,
                     ffn_dim_multiplier=a.ffn_dim_multiplier, norm_eps=a.norm_eps,
                     rope_theta=a.rope_theta, use_scaled_rope=False,
                     max_batch_size=a.batch, max_seq_len=a.seq_len)


def init_weights(model, n_layers):
    for name, p in model.named_parameters():
        if p.ndim == 2:
            std = 0.02
            if name.endswith("wo.weight") or name.endswith("w2.weight"):
                std = 0.02 / math.sqrt(2 * n_layers)
            torch.nn.init.normal_(p, mean=0.0, std=std)


@torch.no_grad()
def heldout_loss(model, data, seq_len, bf16):
    """Mean next-token cross-entropy (nats) over non-overlapping windows."""
    model.eval()
    n = (len(data) - 1) // seq_len
    x = torch.from_numpy(data[: n * seq_len].astype(np.int64)).view(n, seq_len)
    y = torch.from_numpy(data[1: n * seq_len + 1].astype(np.int64)).view(n, seq_len)
    tot, cnt = 0.0, 0
    for i in range(0, n, 16):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            logits = model(x[i:i + 16], 0)
        tot += F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y[i:i + 16].reshape(-1),
                               reduction="sum").item()
        cnt += y[i:i + 16].numel()
    model.train()
    return tot / cnt


def main():
    a = get_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    train = np.load(os.path.join(HERE, "data", "train.npy"))
    held = np.load(os.path.join(HERE, "data", "heldout.npy"))
    from tokenizer import Tokenizer
    vocab_size = Tokenizer(os.path.join(HERE, "model", "tokenizer.model")).n_words
    margs = model_args(a, vocab_size)
    model = Transformer(margs, use_cache=False)
    init_weights(model, a.n_layers)
    nparams = sum(p.numel() for p in model.parameters())
    print(f"params {nparams} ({nparams/1e6:.2f}M), hidden {model.layers[0].feed_forward.w1.weight.shape[0]}", flush=True)

    decay = [p for n, p in model.named_parameters() if p.ndim == 2]
    no_decay = [p for n, p in model.named_parameters() if p.ndim < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": a.wd},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=a.lr, betas=(0.9, 0.95), eps=1e-8)

    def progress(step, elapsed):
        f = step / a.steps
        if a.time_budget:
            f = max(f, elapsed / a.time_budget)
        return min(1.0, f)

    def lr_at(step, elapsed):
        if step < a.warmup:
            return a.lr * (step + 1) / a.warmup
        t = progress(step, elapsed)
        return a.lr * (a.min_lr_frac + (1 - a.min_lr_frac) * 0.5 * (1 + math.cos(math.pi * t)))

    os.makedirs(a.out, exist_ok=True)
    start_step = 0
    prev_elapsed = 0.0
    ck = os.path.join(a.out, "last.pt")
    if not a.bench and os.path.exists(ck):
        s = torch.load(ck)
        model.load_state_dict(s["model"]); opt.load_state_dict(s["opt"]); start_step = s["step"]
        prev_elapsed = s["elapsed"]
        rng = np.random.default_rng(a.seed + start_step)
        print(f"resumed at step {start_step}", flush=True)
    logf = None if a.bench else open(os.path.join(a.out, "log.jsonl"), "a")
    if logf and start_step == 0:
        logf.write(json.dumps({"config": vars(a), "params": nparams}) + "\n")

    def save(step):
        tmp = ck + ".tmp"
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                    "elapsed": time.time() - t0, "config": vars(a), "params": margs.__dict__}, tmp)
        os.replace(tmp, ck)

    model.train()
    t0 = time.time() - prev_elapsed; last_ck = time.time(); tokens_seen = start_step * a.batch * a.seq_len
    run_loss, run_n = 0.0, 0
    T = a.seq_len
    nsteps = a.bench if a.bench else a.steps
    for step in range(start_step, nsteps):
        lr = lr_at(step, time.time() - t0)
        for g in opt.param_groups:
            g["lr"] = lr
        idx = rng.integers(0, len(train) - T - 1, size=a.batch)
        batch = np.stack([train[i:i + T + 1] for i in idx]).astype(np.int64)
        x = torch.from_numpy(batch[:, :-1]); y = torch.from_numpy(batch[:, 1:])
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.bf16):
            logits = model(x, 0)
        loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        tokens_seen += x.numel()
        run_loss += loss.item(); run_n += 1
        el = time.time() - t0
        if a.bench:
            print(f"step {step} loss {loss.item():.3f} {el:.1f}s {tokens_seen/el:.0f} tok/s", flush=True)
            continue
        if (step + 1) % 25 == 0:
            rec = {"step": step + 1, "train_loss": run_loss / run_n, "lr": lr, "tokens": tokens_seen,
                   "elapsed": el}
            run_loss, run_n = 0.0, 0
            if (step + 1) % a.eval_every == 0:
                rec["heldout_loss"] = heldout_loss(model, held, T, a.bf16)
            logf.write(json.dumps(rec) + "\n"); logf.flush()
            print(rec, flush=True)
        done = step + 1 == a.steps or progress(step + 1, time.time() - t0) >= 1.0
        if done or time.time() - last_ck > a.ckpt_minutes * 60:
            save(step + 1); last_ck = time.time()
        if done:
            rec = {"step": step + 1, "train_loss": run_loss / max(1, run_n), "lr": lr, "tokens": tokens_seen,
                   "elapsed": time.time() - t0, "heldout_loss": heldout_loss(model, held, T, a.bf16), "final": True}
            logf.write(json.dumps(rec) + "\n"); logf.flush()
            print(rec, flush=True)
            print(f"finished at step {step + 1}, {time.time() - t0:.0f}s", flush=True)
            break


if __name__ == "__main__":
    main()
