"""What every lab shares: the engine's own tensors (read from the stepper's `p NAME INDEX row R`),
the bundled model's weights (read from its torch zip checkpoint with the standard library and
numpy), a GGUF file's tensors, BF16 rounding, a comparison that names the first element that
differs, and Llama 3's pre-tokenizer.

Nothing here is part of any exercise: the labs ask for the functions in lab*.py."""
import importlib.util
import os
import pickle
import re
import shutil
import struct
import subprocess
import zipfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "assets", "model")
PROMPT = "The cat sat on the mat"  # 9 tokens with the begin-of-text token


def walkthrough():
    """The llama-walkthrough program: $LLAMA_WALKTHROUGH, else the one on PATH, else build/'s."""
    exe = os.environ.get("LLAMA_WALKTHROUGH") or shutil.which("llama-walkthrough")
    if not exe:
        exe = os.path.join(ROOT, "build", "walkthrough", "llama-walkthrough")
    if not os.path.exists(exe):
        raise SystemExit("llama-walkthrough not found: build it (make build) or put build/walkthrough on PATH")
    return exe


_ROW = re.compile(r"^(\S+) \[([\d ]+)\] (\w+)(?:, \[(\d+)\]|, head (\d+))?, row (\d+): all (\d+) columns$")
# Stages whose 3-D tensors are heads first: the stepper counts their slices (heads) from 1.
_HEADS_FIRST = {"transposes", "scores_matmul", "scores_scale", "scores_mask", "scores_softmax", "attention_values"}


def prompt_tokens(prompt):
    """The token ids the engine makes of `prompt` (begin-of-text first), from its tokenization stage."""
    run = subprocess.run([walkthrough(), "--model", MODEL, "-q", "--step", "-n", "1", "--prompt", prompt], input="q\n",
                         capture_output=True, text=True, cwd=ROOT)
    m = re.search(r"Tokenized the prompt into \d+ tokens: ([\d ]+)", run.stdout)
    if not m:
        raise SystemExit(f"no tokenization stage in the run:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
    return [int(t) for t in m.group(1).split()]


_HEADER = re.compile(r"^-- Stage \d+: .* \[(\w+)\]")
_WHERE = re.compile(r"^\s+(?:layer (\d+)/\d+|outside the layers), .*startPos (\d+)")


def stepper_tensors(argv, stops):
    """Runs llama-walkthrough with `argv` (a --step run, or `batch ... --step`) and holds it at each
    of `stops`, in the order the run reaches them: (stage, layer, wanted) holds at `stage` of
    `layer` (1-based, as the log counts; 0 outside the layers) and prints every row of the tensors
    in `wanted`, {name: (slices, rows)} with slices 0 for a 1-D or 2-D tensor, else the size of the
    first dimension; (stage, layer, wanted, start_pos) names the forward pass too (a decode step, a
    later ubatch): every pass the run holds at before it needs a stop of its own, with {} to print
    nothing. Each tensor comes back shaped [rows, cols] or [slices, rows, cols], in float32 (the
    stepper prints 6 significant digits, enough to tell every BF16 value apart). The name "|" in `wanted` (any shape) returns the stage's description lines, the ones
    the stepper prints after "| ". Returns one {name: array} per stop."""
    commands = []
    for stage, layer, wanted, *_ in stops:
        commands += [f"b {stage} {layer}" if layer else f"b {stage}", "c"]
        for name, (slices, rows) in wanted.items():
            for s in range(max(slices, 1) if name != "|" else 0):
                for r in range(rows):
                    index = s + 1 if stage in _HEADS_FIRST else s
                    commands.append(f"p {name} {index} row {r}" if slices else f"p {name} row {r}")
    commands.append("q")
    run = subprocess.run([walkthrough(), *argv], input="\n".join(commands) + "\n", capture_output=True, text=True, cwd=ROOT)
    holds = []  # [stage, layer, startPos, {(name, slice, row): values}, description] in the order the run held
    lines = run.stdout.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].replace("step> ", "")
        i += 1
        if m := _HEADER.match(line):
            holds.append([m.group(1), 0, 0, {}, []])
        elif (m := _WHERE.match(line)) and holds and not holds[-1][3]:
            holds[-1][1:3] = [int(m.group(1) or 0), int(m.group(2))]
        if holds and line.startswith("   | "):
            holds[-1][4].append(line[5:])
        m = _ROW.match(line)
        if not m:
            continue
        name, r, cols = m.group(1), int(m.group(6)), int(m.group(7))
        s = int(m.group(5)) - 1 if m.group(5) else int(m.group(4) or 0)
        row = []
        while len(row) < cols:
            row += [float(v) for v in lines[i].split(":", 1)[1].split()]
            i += 1
        holds[-1][3][(name, s, r)] = row
    # The run pauses at its first stage before it reads a command; the first `c` leaves it, so
    # every stop is a hold after that one.
    results, next_hold = [], 1
    for stage, layer, wanted, *start_pos in stops:
        # The first hold from here on at this stage, layer (and pass) that printed what was asked.
        found = next((k for k in range(next_hold, len(holds)) if holds[k][:2] == [stage, layer]
                      and (not start_pos or holds[k][2] == start_pos[0])), None)
        if found is None:
            where = f"stage {stage}, layer {layer}" + (f", startPos {start_pos[0]}" if start_pos else "")
            raise SystemExit(f"the run did not stop at {where}:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
        next_hold = found + 1
        out = {}
        for name, (slices, rows) in wanted.items():
            if name == "|":
                out[name] = holds[found][4]
                continue
            try:
                grid = [[holds[found][3][(name, s, r)] for r in range(rows)] for s in range(max(slices, 1))]
            except KeyError as e:
                raise SystemExit(f"the stepper printed no row {e} of {name} at stage {stage}:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
            a = np.array(grid, dtype=np.float32)
            out[name] = a if slices else a[0]
        results.append(out)
    return results


def pretokenize(text):
    """`text` cut into pieces by Llama 3's pre-tokenizer (chapter 8), every piece in order: the
    pattern of assets/tokenizer.py, which made the bundled tokenizer, run by Debian's
    python3-regex (Python's own `re` has no \\p{L}); the engine runs the same pattern with PCRE2."""
    try:
        import regex
    except ImportError:
        raise SystemExit("this lab needs Python's regex module: Debian's python3-regex (scripts/install-deps.sh installs it)")
    spec = importlib.util.spec_from_file_location("bundled_tokenizer", os.path.join(ROOT, "assets", "tokenizer.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return regex.findall(module.PAT_STR, text)


def bf16(x):
    """x rounded to the nearest BF16 value (ties to even), as float32: what the engine stores."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


class _Unpickler(pickle.Unpickler):
    """Only what torch.save writes for a state dict; anything else is refused (chapter 1)."""

    def __init__(self, f, archive, folder):
        super().__init__(f)
        self.archive, self.folder = archive, folder

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            import collections
            return collections.OrderedDict
        if (module, name) in (("torch._utils", "_rebuild_tensor_v2"), ("torch._utils", "_rebuild_parameter")):
            return self._rebuild if name == "_rebuild_tensor_v2" else (lambda t, *_: t)
        if module == "torch" and name in ("BFloat16Storage", "FloatStorage"):
            return name
        raise pickle.UnpicklingError(f"the checkpoint names {module}.{name}, which this reader does not allow")

    def persistent_load(self, pid):
        _, storage_class, key, _, _ = pid
        raw = self.archive.read(f"{self.folder}/data/{key}")
        if storage_class == "BFloat16Storage":
            return (np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
        return np.frombuffer(raw, dtype=np.float32)

    @staticmethod
    def _rebuild(storage, offset, size, stride, *_):
        return np.lib.stride_tricks.as_strided(storage[offset:], shape=size,
                                               strides=[s * 4 for s in stride]).copy()


def load_weights(path=os.path.join(MODEL, "consolidated.00.pth")):
    """The checkpoint's tensors by name, as float32 arrays (BF16 widened exactly)."""
    with zipfile.ZipFile(path) as archive:
        pkl = next(n for n in archive.namelist() if n.endswith("/data.pkl"))
        with archive.open(pkl) as f:
            return dict(_Unpickler(f, archive, pkl.rsplit("/", 1)[0]).load())


# GGUF (chapter 13): the sizes of a key-value's scalar types, by type code; 8 is a string, 9 an array.
_GGUF_SCALARS = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
# Bytes per block and weights per block of the tensor types the labs read: F32, Q4_0.
GGUF_TYPES = {0: (4, 1), 2: (18, 32)}


def gguf_tensors(path):
    """A GGUF file's tensors (version 3, chapter 13's layout) as {name: (type code, shape, raw bytes
    as a uint8 array)}: shape as GGUF lists it, innermost first; a quantized tensor's bytes are its
    blocks one after another, row by row."""
    data = open(path, "rb").read()
    at = 0

    def take(fmt):
        nonlocal at
        values = struct.unpack_from("<" + fmt, data, at)
        at += struct.calcsize("<" + fmt)
        return values[0] if len(values) == 1 else values

    def string():
        nonlocal at
        n = take("Q")
        at += n
        return data[at - n:at].decode()

    def skip(kind):
        nonlocal at
        if kind == 8:
            string()
        elif kind == 9:
            inner, n = take("I"), take("Q")
            for _ in range(n):
                skip(inner)
        else:
            at += _GGUF_SCALARS[kind]

    if data[:4] != b"GGUF":
        raise SystemExit(f"{path}: not a GGUF file")
    at = 4
    _, n_tensors, n_kv = take("I"), take("Q"), take("Q")
    alignment = 32
    for _ in range(n_kv):
        key, kind = string(), take("I")
        if key == "general.alignment":
            alignment = take("I")
        else:
            skip(kind)
    infos = []
    for _ in range(n_tensors):
        name, n_dims = string(), take("I")
        shape = [take("Q") for _ in range(n_dims)]
        infos.append((name, shape, take("I"), take("Q")))
    start = (at + alignment - 1) // alignment * alignment
    tensors = {}
    for name, shape, kind, offset in infos:
        if kind in GGUF_TYPES:
            block_bytes, block_size = GGUF_TYPES[kind]
            size = int(np.prod(shape)) // block_size * block_bytes
            tensors[name] = (kind, shape, np.frombuffer(data, np.uint8, size, start + offset))
    return tensors


def compare(what, yours, engine, tolerance, scaled=False, theirs="the engine's"):
    """True when every element agrees within tolerance * max(1, |engine|) (scaled: within
    tolerance * the largest |engine| of the tensor, for gradients, whose values are all small;
    scaled="rows": of its row, for logits);
    else prints the first element that differs (row-major order) and the largest difference.
    A NaN or an infinity of yours agrees with nothing but the same infinity of the engine's (a
    masked score's -inf). `theirs` names the values compared with where they are not the engine's."""
    yours = np.asarray(yours, dtype=np.float64)
    engine = np.asarray(engine, dtype=np.float64)
    if yours.shape != engine.shape:
        print(f"{what}: your shape is {list(yours.shape)}, {theirs} {list(engine.shape)}")
        return False
    with np.errstate(invalid="ignore"):
        diff = np.abs(yours - engine)
    finite = np.isfinite(engine)
    if scaled == "rows":
        bound = tolerance * np.abs(np.where(finite, engine, 0)).max(axis=-1, keepdims=True)
    elif scaled:
        bound = tolerance * np.abs(engine[finite]).max(initial=0)
    else:
        bound = tolerance * np.maximum(1.0, np.abs(np.where(finite, engine, 0)))
    # Written so that a comparison with NaN counts as a difference: NaN <= bound is false.
    good = (diff <= bound) | (yours == engine)
    if not good.all():
        bad = ~good
        first = np.unravel_index(np.argmax(bad), bad.shape)
        idx = ", ".join(str(int(i)) for i in first)
        nonfinite = int((~np.isfinite(yours) & finite).sum())
        note = f"; {nonfinite} of yours are NaN or infinite" if nonfinite else ""
        largest = np.nanmax(np.where(np.isfinite(diff), diff, np.nan)) if np.isfinite(diff).any() else float("nan")
        print(f"{what}: first difference at [{idx}]: yours {yours[first]:.6g}, {theirs} {engine[first]:.6g}"
              f" ({int(bad.sum())} of {bad.size} elements off; largest difference {largest:.3g}{note})")
        return False
    largest = diff[finite].max(initial=0)
    of = {True: " of the largest", "rows": " of their row's largest"}.get(scaled, "")
    print(f"{what}: all {engine.size} elements agree within {tolerance:g}{of} (largest difference {largest:.3g})")
    return True
