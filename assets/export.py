#!/usr/bin/env python3
"""Export ckpt/last.pt to Meta's layout in model/: consolidated.00.pth
(torch.save of a plain dict of contiguous bfloat16 tensors, each with its own
storage) and params.json. tokenizer.model is already in model/.
  export.py [CKPT_DIR OUT_DIR]   another run's last.pt to another folder, model/'s
                                 tokenizer.model copied beside it (evaluate.py --model OUT_DIR)"""
import json, os, shutil, sys
import torch
HERE = os.path.dirname(os.path.abspath(__file__))

def main():
    ckpt_dir, out = (sys.argv[1], sys.argv[2]) if len(sys.argv) == 3 else (os.path.join(HERE, "ckpt"), os.path.join(HERE, "model"))
    ck = torch.load(os.path.join(ckpt_dir, "last.pt"), map_location="cpu")
    p = ck["params"]
    params = {
        "dim": p["dim"], "n_layers": p["n_layers"], "n_heads": p["n_heads"], "n_kv_heads": p["n_kv_heads"],
        "vocab_size": p["vocab_size"], "multiple_of": p["multiple_of"],
        "ffn_dim_multiplier": p["ffn_dim_multiplier"], "norm_eps": p["norm_eps"],
        "rope_theta": p["rope_theta"], "use_scaled_rope": p["use_scaled_rope"],
    }
    sd = {k: v.detach().to(torch.bfloat16).contiguous().clone() for k, v in ck["model"].items()}
    os.makedirs(out, exist_ok=True)
    torch.save(sd, os.path.join(out, "consolidated.00.pth"))
    tokenizer = os.path.join(HERE, "model", "tokenizer.model")
    if os.path.abspath(out) != os.path.dirname(tokenizer):
        shutil.copyfile(tokenizer, os.path.join(out, "tokenizer.model"))
    with open(os.path.join(out, "params.json"), "w") as f:
        json.dump(params, f, indent=2)
        f.write("\n")
    n = sum(v.numel() for v in sd.values())
    print(f"exported step {ck['step']}: {len(sd)} tensors, {n} params")
    for k, v in list(sd.items())[:12]:
        print(" ", k, tuple(v.shape), v.dtype)

if __name__ == "__main__":
    main()
