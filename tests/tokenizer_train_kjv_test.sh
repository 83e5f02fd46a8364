#!/bin/sh
# `tokenizer-train` on the bundled corpus makes assets/model/tokenizer.model again, byte for byte:
# the training text made as assets/make_corpus.py makes it (run unchanged in WORK, where it writes
# data/train.txt), from Debian's bible-kjv; skipped (77) without its `bible` program.
# usage: tokenizer_train_kjv_test.sh LLAMA_WALKTHROUGH ASSETS_DIR PYTHON WORK
set -e
if ! command -v bible >/dev/null 2>&1; then
  echo "skipped: 'bible' is not installed (Debian's bible-kjv; scripts/install-deps.sh installs it)"
  exit 77
fi
rm -rf "$4"
mkdir -p "$4"
cp "$2/make_corpus.py" "$4/"
"$3" "$4/make_corpus.py"
"$1" tokenizer-train --text "$4/data/train.txt" --out "$4/tokenizer.model"
cmp "$4/tokenizer.model" "$2/model/tokenizer.model"
echo "byte for byte the same as $2/model/tokenizer.model"
