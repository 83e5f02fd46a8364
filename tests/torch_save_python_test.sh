#!/bin/sh
# What `convert --to meta` and `--to meta-f32` write is what PyTorch 1.13 reads and writes: torch.load
# gives the bundled model's tensors back (bfloat16 as they were, float32 widened exactly), torch.save
# of those tensors gives our consolidated.00.pth byte for byte, and assets/reference_model.py's
# load_model runs the converted directory to the original's logits. Skipped (77) where PYTHON has no
# torch (Debian's python3-torch: some 200 MB with libtorch, so not in scripts/install-deps.sh).
# usage: torch_save_python_test.sh LLAMA_WALKTHROUGH ASSETS_DIR PYTHON WORK
set -e
if ! "$3" -c 'import torch' >/dev/null 2>&1; then
  echo "skipped: $3 cannot import torch (Debian's python3-torch)"
  exit 77
fi
rm -rf "$4"
mkdir -p "$4/torch"
"$1" convert --model "$2/model" --to meta --out "$4/meta" >/dev/null
"$1" convert --model "$2/model" --to meta-f32 --out "$4/meta-f32" >/dev/null
"$3" - "$2" "$4" <<'PY'
import filecmp, os, sys
import torch
assets, work = sys.argv[1], sys.argv[2]
sys.path.insert(0, assets)
from reference_model import load_model

original = torch.load(os.path.join(assets, "model", "consolidated.00.pth"), map_location="cpu")
bf16 = torch.load(os.path.join(work, "meta", "consolidated.00.pth"), map_location="cpu")
f32 = torch.load(os.path.join(work, "meta-f32", "consolidated.00.pth"), map_location="cpu")
assert type(bf16) is dict and type(f32) is dict, (type(bf16), type(f32))
assert list(bf16) == list(original) == list(f32), "tensor names or order differ"
for name, t in original.items():
    assert bf16[name].dtype == t.dtype and torch.equal(bf16[name], t), name
    assert f32[name].dtype == torch.float32 and torch.equal(f32[name], t.float()), name

# torch.save of the same tensors, under the same file name (torch names the archive's folder after it).
torch.save(bf16, os.path.join(work, "torch", "consolidated.00.pth"))
assert filecmp.cmp(os.path.join(work, "torch", "consolidated.00.pth"), os.path.join(work, "meta", "consolidated.00.pth"),
                   shallow=False), "torch.save wrote other bytes"

tokens = torch.tensor([[1, 17, 300, 1000, 42]])
with torch.inference_mode():
    logits = [load_model(d)[0].forward(tokens, 0) for d in (os.path.join(assets, "model"), os.path.join(work, "meta"))]
assert torch.equal(logits[0], logits[1]), "reference_model.py's logits differ"
print(f"torch.load reads all {len(original)} tensors; torch.save writes the same bytes; reference_model.py gives the same logits")
PY
