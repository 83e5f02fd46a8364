#!/bin/sh
# The bundled model fine-tuned for chat (docs/training.md, "Fine-tuning for chat"): chat examples
# made from the corpus (make_chat_corpus.py; Jude and Revelation held out), then `train --sft` from
# model/'s weights, the loss on the assistant's replies only, 300 steps of 8 examples. Then the
# result in BF16, Meta's layout, which answers `--chat` prompts in form:
#   ../build/walkthrough/llama-walkthrough --model assets/chat-model-bf16 --chat --prompt "Quote Genesis 1:3."
#   assets/make_chat_model.sh [OUT]    (OUT: assets/chat-model, the BF16 copy OUT-bf16; run it again
#                                      to resume after a stop)
# Needs a built llama-walkthrough (make walkthrough, or $WALKTHROUGH), python3 and bible-kjv.
set -eu
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
WALKTHROUGH=${WALKTHROUGH:-../build/walkthrough/llama-walkthrough}
OUT=${1:-chat-model}
[ -f data/chat_train.jsonl ] || $PY make_chat_corpus.py    # data/chat_train.jsonl, data/chat_heldout.jsonl
RESUME=
[ -f "$OUT/training.json" ] && RESUME=--resume
$WALKTHROUGH train --init-from model --sft data/chat_train.jsonl --heldout data/chat_heldout.jsonl \
    --out "$OUT" --steps 300 --batch 8 --warmup 20 --lr 5e-4 --eval-every 100 --log-every 10 $RESUME
rm -rf "$OUT-bf16"
$WALKTHROUGH convert --model "$OUT" --to meta --out "$OUT-bf16"
