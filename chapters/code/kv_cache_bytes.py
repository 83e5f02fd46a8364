#!/usr/bin/python3
"""The KV cache of a few attention designs (chapter 19), in BF16, at a context of N positions.

Each layer of full attention keeps, per position, a key and a value for each KV head:
2 * n_kv_heads * head_dim numbers. The designs differ in what they keep:
- GQA and MHA (chapter 6): Llama 3.1 8B's 32 layers, 8 KV heads of 128 (GQA) or 32 (MHA);
- sliding windows: the same shape, but 5 layers of every 6 attend to the last 1024 positions
  only and keep no more (Gemma 3's pattern: 5 local layers to 1 global, a 1024-position window);
- hybrid: the same shape, but only 1 layer in 8 is attention (Jamba's ratio); the other layers
  are recurrent and keep a state of fixed size, whatever the context, which is not counted here;
- MLA: DeepSeek-V3's 61 layers keep one latent vector of 512 numbers and one shared RoPE key of
  64 per position, from which every head's key and value are computed again; beside it, what the
  same 128 heads would keep as ordinary keys (128 + 64 numbers) and values (128).

usage: kv_cache_bytes.py [N]   (N defaults to 131072, Llama 3.1's context)
"""
import sys

BF16 = 2


def full(layers, numbers_per_layer, n):
    return layers * numbers_per_layer * n * BF16


def windowed(layers, local_every, window, numbers_per_layer, n):
    """Layer i is global when (i + 1) % local_every == 0, else it keeps at most `window` positions."""
    global_layers = sum(1 for i in range(layers) if (i + 1) % local_every == 0)
    return full(global_layers, numbers_per_layer, n) + full(layers - global_layers, numbers_per_layer, min(n, window))


def size(b):
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= scale:
            return f"{b / scale:.2f} {unit}"
    return f"{b} B"


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 131072
    gqa = 2 * 8 * 128
    designs = [
        ("Llama 3.1 8B, GQA (8 KV heads)", full(32, gqa, n)),
        ("  the same with MHA (32 KV heads)", full(32, 2 * 32 * 128, n)),
        ("  5 of 6 layers a 1024-position window", windowed(32, 6, 1024, gqa, n)),
        ("  1 layer in 8 attention (hybrid)", full(4, gqa, n)),
        ("DeepSeek-V3, MLA (latent 512 + key 64)", full(61, 512 + 64, n)),
        ("  the same heads as plain keys and values", full(61, 128 * (128 + 64) + 128 * 128, n)),
    ]
    print(f"KV cache in BF16 at {n} positions")
    print(f"{'design':44} {'whole cache':>12} {'per position':>13}")
    for name, b in designs:
        print(f"{name:44} {size(b):>12} {size(b // n):>13}")


if __name__ == "__main__":
    main()
