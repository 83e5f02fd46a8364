#!/usr/bin/env bash
# Writes the seed corpus of every fuzz target into tests/fuzz/corpus/NAME/: small valid inputs,
# so the fuzzer starts from files that get deep into each parser. Made from the project's own
# fixtures and from a tiny synthetic model written by a built llama-walkthrough.
# Usage: tests/fuzz/make_seeds.sh build/walkthrough/llama-walkthrough
set -euo pipefail
exe=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
corpus=$here/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$corpus"
for t in pickle zip_index torch_checkpoint params_json config_json safetensors gguf tiktoken_file sentencepiece_model \
         tokenizer_json trace viewer_script doc_lines encode llama2c llama2c_tokenizer; do mkdir -p "$corpus/$t"; done

# Meta's layout: the small checkpoints of tests/fixtures/torch (made by torch, see its README),
# the data.pkl inside each, and the bundled model's params.json.
for pth in "$root"/tests/fixtures/torch/*.pth; do
  cp "$pth" "$corpus/torch_checkpoint/"
  cp "$pth" "$corpus/zip_index/"
  python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
name = next(n for n in z.namelist() if n.endswith("/data.pkl"))
open(sys.argv[2], "wb").write(z.read(name))' "$pth" "$corpus/pickle/$(basename "$pth" .pth).pkl"
done
cp "$root/assets/model/params.json" "$corpus/params_json/bundled.json"

# Hugging Face and GGUF files of a tiny random model.
"$exe" convert --synthetic tiny --to safetensors --out "$tmp/hf" > /dev/null
cp "$tmp/hf/config.json" "$corpus/config_json/tiny.json"
cp "$tmp/hf/tokenizer.json" "$corpus/tokenizer_json/tiny.json"
# The model's safetensors is 400 KB: the seed is a small file of the same layout (u64 header
# length, JSON header, data) with a tensor of each dtype we read.
python3 -c 'import json, struct, sys
tensors, data = {}, b""
for name, dtype, shape, size in [("model.norm.weight", "BF16", [4], 2), ("lm_head.weight", "F32", [2, 3], 4), ("x", "F16", [3], 2)]:
    n = size
    for d in shape: n *= d
    tensors[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + n]}
    data += bytes(range(n))
tensors["__metadata__"] = {"format": "pt"}
header = json.dumps(tensors).encode()
open(sys.argv[1], "wb").write(struct.pack("<Q", len(header)) + header + data)' "$corpus/safetensors/small.safetensors"
"$exe" convert --synthetic tiny --to gguf-q4_0 --out "$corpus/gguf/tiny-q4_0.gguf" > /dev/null

# Tokenizers.
cp "$root/tests/fixtures/tokenizer/tiny.tiktoken" "$corpus/tiktoken_file/"
cp "$root/tests/fixtures/sentencepiece/llama2_style.model" "$corpus/sentencepiece_model/"

# A trace and a debug log of two tokens of the tiny model; documents quoting log lines.
"$exe" --synthetic tiny -n 2 --trace "$corpus/trace/tiny.trace" --debug-log "$corpus/doc_lines/tiny.log" -q > /dev/null
# A batch of two sequences (format version 3: ubatch tables, KV cells, the mask from the cells).
"$exe" batch --synthetic tiny -p "ab" -p "cde" --parallel 2 --ubatch 4 -n 2 --trace "$corpus/trace/batch.trace" -q > /dev/null
# A patch trace (fuzz_patch_trace.cpp): the grid and both runs of the bundled model, 4-token prompts.
mkdir -p "$corpus/patch_trace"
"$exe" patch --clean "And Moses said" --corrupt "And Joseph said" --answer " unto" --wrong " to" --trace "$corpus/patch_trace/moses.ptrace" > /dev/null
cp "$root"/tests/fixtures/compare_doc/*.md "$corpus/doc_lines/"
cp "$root"/viewer/scripts/*.txt "$corpus/viewer_script/"
# Scripts run against the replay of trace/tiny.trace (fuzz_viewer_script_state.cpp): the smoke
# test, every what-if and view command, breakpoints and the sampling settings.
mkdir -p "$corpus/viewer_script_state"
cp "$root/viewer/scripts/smoke_test.txt" "$corpus/viewer_script_state/smoke_test.script"
printf '%s\n' "# what-if settings, then the view at a held stage" "max-tokens 2" "no-mask on" "rope-theta 10000" "ablate-head 1:1" \
  "skip-layer 1" "step-to scores_softmax 1" "layer 1" "head 1" "cell 0 0" "scores masked" "select 3" "tensor scores" "step" \
  "step-layer" "step-token" "no-mask off" "ablate-head off" "skip-layer off" "rope-theta off" "run" > "$corpus/viewer_script_state/whatif.script"
printf '%s\n' "breakpoint ffn_residual 2" "breakpoint attention" "continue" "continue" "step-to logits" "map-layer 2" "select 0" \
  "tensor xq" "stop" "start" "step" "restart" "step-to sample 1 1" "temperature 0.7" "top-k 5" "top-p 0.9" "min-p 0.1" "seed 7" \
  "repeat-penalty 1.3" "repeat-last-n 16" "frequency-penalty 0.5" "presence-penalty 0.5" "mode chat" 'system "Be brief."' \
  'prompt "In the beginning"' > "$corpus/viewer_script_state/breakpoints.script"
# Two traces for diff, joined by the line fuzz_trace_diff.cpp splits them at. Whole traces (90 KB)
# made the fuzzer slow (55 inputs a second), so these are small: the tiny model on a two-byte
# prompt for one token with an 8-position context, alone, with head 2 of layer 1 ablated (the
# pair diverges) and as a dry run (shapes only, no statistics). Each is then cut to META, END and
# the records of a few stages that hold what diff compares (token ids, stored values, the mask and
# scores, cacheFilled, the lens, the top tokens, three qkv_task records paired by their log lines):
# 5-9 KB a trace.
mkdir -p "$corpus/trace_diff"
small=(--synthetic tiny -p Hi -n 1 --max-seq-len 8 --trace-top-k 2 --trace-lens-top-k 1 -q)
"$exe" "${small[@]}" --trace "$tmp/base.trace" > /dev/null
"$exe" "${small[@]}" --ablate-head 1:2 --trace "$tmp/ablated.trace" > /dev/null
"$exe" "${small[@]}" --dry-run --trace "$tmp/dry.trace" > /dev/null
python3 -c 'import json, struct, sys
keep = {("tokens_tensor", -1), ("input_embeddings", -1), ("mask", -1), ("qkv_task", 0), ("cache_write", 0), ("scores_softmax", 0),
        ("attention_residual", 0), ("ffn_residual", 0), ("ffn_residual", 1), ("sample", -1)}
for path in sys.argv[1:]:
    d = open(path, "rb").read()
    out, p = [d[:12]], 12  # magic and version
    while p < len(d):
        jsonBytes, dataBytes = struct.unpack("<IQ", d[p + 4:p + 16])
        end = p + 16 + jsonBytes + dataBytes
        if d[p:p + 4] != b"STAG" or (lambda j: (j["stage"], j["layer"]) in keep)(json.loads(d[p + 16:p + 16 + jsonBytes])):
            out.append(d[p:end])
        p = end
    open(path, "wb").write(b"".join(out))' "$tmp/base.trace" "$tmp/ablated.trace" "$tmp/dry.trace"
pair() { cat "$tmp/$1.trace"; printf '\n--8<--\n'; cat "$tmp/$2.trace"; }
pair base base > "$corpus/trace_diff/same.pair"
pair base ablated > "$corpus/trace_diff/ablated.pair"
pair dry base > "$corpus/trace_diff/dry.pair"

# A page's data from a trace (fuzz_run_page_data.cpp): the tiny model on a two-byte prompt with
# every attention cell's inputs, the lens and the top tokens; and chapters for the site's pages
# (fuzz_site_markdown.cpp), written here.
mkdir -p "$corpus/run_page_data" "$corpus/site_markdown"
"$exe" "${small[@]}" --trace-presoftmax --trace "$corpus/run_page_data/presoftmax.trace" > /dev/null
cat > "$corpus/site_markdown/chapter.md" <<'CHAPTER'
# Attention, step by step

A link to [the next chapter](02-two.md#stage-mask) and to [a file](../engine/model/llama_attention.cpp),
an [address](https://example.org/x?a=1&b=2), a figure ![the mask](figure.png) and one outside ![x](../secret.txt).

<!-- stage: mask -->
## The mask

| a | b |
|---|---|
| 1 | 2 |

<details><summary>Check</summary>

```shapes
scores: [8 5 5] BF16
```

</details>

<!-- stage: scores_softmax -->
<img src="figure.png" alt="raw"> <a href="01-one.md">raw link</a>
CHAPTER
printf '# Short\n\n![a&b](a&b%%20c.png) [x](javascript:alert(1)) <!-- stage: tokenize -->\n' > "$corpus/site_markdown/escapes.md"

# Command lines, NUL-terminated words (fuzz_options.cpp).
mkdir -p "$corpus/options"
printf '%s\0' --synthetic tiny --ablate-head 2:3 --skip-layer 1 --seed 42 > "$corpus/options/whatif"
printf '%s\0' -p hi --chat --temperature 0.7 --top-p 0.9 --top-k 40 --repeat-penalty 1.1 -n 8 > "$corpus/options/sampling"
printf '%s\0' --model /x.gguf --threads 2 --rope-theta 10000 --no-mask --no-rope --no-kv-cache > "$corpus/options/model"

# llama2.c: the fixtures' tokenizer.bin, and the smallest models of its 4096 tokens in each
# layout (make_models.py's writers with dim 2, one layer, one head, 4 positions).
cp "$root/tests/fixtures/llama2c/tokenizer.bin" "$corpus/llama2c_tokenizer/"
/usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import make_models as m
m.DIM, m.HIDDEN, m.LAYERS, m.HEADS, m.KV_HEADS, m.SEQ, m.HEAD, m.KV_DIM = 2, 2, 1, 1, 1, 4, 2, 2
m.write_legacy(sys.argv[2] + "/legacy.bin", m.Model(1), shared=False)
m.write_v1(sys.argv[2] + "/v1.bin", m.Model(2), shared=True)
m.write_v2(sys.argv[2] + "/v2.bin", m.Model(3), shared=False, group_size=2)' "$root/tests/fixtures/llama2c" "$corpus/llama2c"

# Text to encode: the first byte picks the tokenizer (bit 0) and special tokens (bit 1).
printf '\x00And the LORD spake unto Moses, saying,' > "$corpus/encode/llama3-text"
printf '\x02<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi 123 é 日本<|eot_id|>' > "$corpus/encode/llama3-special"
printf '\x01 hello world, 123 é' > "$corpus/encode/llama2-text"
printf '\x03<s>[INST] hi [/INST]' > "$corpus/encode/llama2-special"
# Grammars (fuzz_grammar.cpp): the test grammars of issue 34 and --json's.
mkdir -p "$corpus/grammar"
cp "$root"/tests/fixtures/steer/*.gbnf "$corpus/grammar/"
python3 -c 'import re, sys; print(re.search(r"R\"\((.*?)\)\";", open(sys.argv[1]).read(), re.S).group(1), end="")' \
  "$root/engine/generate/json_grammar.h" > "$corpus/grammar/json.gbnf"

# Control vectors (fuzz_control_vector.cpp): ours and llama.cpp's cvector-generator's (tests/fixtures/steer).
mkdir -p "$corpus/control_vector"
cp "$root"/tests/fixtures/steer/joy.gguf "$root"/tests/fixtures/steer/joy_llamacpp.gguf "$corpus/control_vector/"
# Inputs that once made a target fail (tests/fuzz/regressions/NAME/), kept among the seeds.
cp -r "$here"/regressions/. "$corpus/"
du -sh "$corpus"/*
