#!/bin/sh
# Rebuild everything in assets/ from scratch: corpus, tokenizer, training,
# export, evaluation, loss plot, golden files.
# Needs Debian packages: bible-kjv python3-torch python3-numpy python3-regex python3-matplotlib
# Training takes about 70 minutes of wall clock on 2 CPU cores (bf16 autocast).
set -eu
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
$PY make_corpus.py          # data/train.txt, data/heldout.txt
$PY train_tokenizer.py      # model/tokenizer.model
$PY encode_data.py          # data/train.npy, data/heldout.npy
rm -rf ckpt
OMP_WAIT_POLICY=PASSIVE $PY train.py --bf16 --dim 256 --n-layers 8 --n-heads 8 --n-kv-heads 2 \
    --multiple-of 256 --ffn-dim-multiplier 1.3 --seq-len 256 --batch 16 \
    --steps 4000 --time-budget 4100 --warmup 100 --lr 1.5e-3 --wd 0.1 \
    --eval-every 100 --ckpt-minutes 4 | tee train.log
$PY export.py               # model/consolidated.00.pth, model/params.json
$PY evaluate.py             # eval.json, samples.txt (bf16 reference)
$PY plot_loss.py            # loss.png
$PY golden/make_golden.py   # golden/*.json
