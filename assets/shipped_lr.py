#!/usr/bin/env python3
"""The learning rates the shipped model was trained with, from train.log (train.py's printed log
records, Python dicts) to data/shipped-lr.jsonl: JSON lines {"step": N, "lr": RATE}, the rate of
step N (from 1), every 25 steps. train.py's cosine followed its wall clock (README.md), so these
rates are what its machine's load made them; `llama-walkthrough train --lr-schedule` follows them
(retrain.sh SCHEDULE=shipped)."""
import ast, json, os

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    out = os.path.join(HERE, "data", "shipped-lr.jsonl")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    n = 0
    with open(os.path.join(HERE, "train.log")) as log, open(out, "w") as f:
        for line in log:
            if line.startswith("{"):
                rec = ast.literal_eval(line)
                f.write(json.dumps({"step": rec["step"], "lr": rec["lr"]}) + "\n")
                n += 1
    print(f"{out}: {n} records")


if __name__ == "__main__":
    main()
