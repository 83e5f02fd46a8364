#!/usr/bin/python3
"""Exercise 10.5's reference solution: RMSNorm written out, applied to two rows of the block's
input x as the stepper prints them (`p x row R` at stage 5); each row's result set beside the
engine's normalizedX (stage 6). The engine multiplies by learned weights that the stepper does
not print, so normalizedX / ours gives them: the same 256 numbers whichever row they come from.

usage: (stepper output: `p x row A`, `p x row B`, then `p normalizedX row A`, `p normalizedX row B`) | rmsnorm.py"""
import numpy as np

from stepper_tables import read_full_rows, show

NORM_EPS = 1e-5  # params.json's norm_eps (chapter 2)


def rms_norm(x, eps=NORM_EPS):
    # Divide by the root of the mean square; unlike LayerNorm nothing is subtracted first.
    return x / np.sqrt(np.mean(x * x) + eps)


def main():
    printed = read_full_rows()
    names = [(name, row) for name, row, _ in printed]
    if len(names) != 4 or [n for n, _ in names] != ["x", "x", "normalizedX", "normalizedX"] or names[0][1] != names[2][1] or names[1][1] != names[3][1]:
        raise SystemExit(f"expected x row A, x row B, then normalizedX row A and row B; found {names}")
    rows = [names[0][1], names[1][1]]
    x = [np.array(values, dtype=np.float64) for _, _, values in printed[:2]]
    engine = [np.array(values, dtype=np.float64) for _, _, values in printed[2:]]
    weights = []
    for row, xr, er in zip(rows, x, engine):
        ours = rms_norm(xr)
        print(f"row {row}: rms(x) {np.sqrt(np.mean(xr * xr)):.4g}, rms(ours) {np.sqrt(np.mean(ours * ours)):.4f}")
        print(f"  ours:   {show(ours[:6])}")
        print(f"  engine: {show(er[:6])}")
        # Where ours is (nearly) 0 the ratio says nothing about the weight.
        weights.append(np.where(np.abs(ours) > 1e-3, er / np.where(ours == 0, 1, ours), np.nan))
    for row, w in zip(rows, weights):
        print(f"weights from row {row}: {show(w[:6])}")
    both = ~np.isnan(weights[0]) & ~np.isnan(weights[1])
    spread = np.max(np.abs(weights[0][both] - weights[1][both]) / np.abs(weights[1][both]))
    print(f"largest relative difference: {spread:.4f} over {np.count_nonzero(both)} columns")
    # The same with LayerNorm's mean subtracted: the two rows no longer imply the same weights.
    layer_norm = [er / ((xr - xr.mean()) / np.sqrt(np.var(xr) + NORM_EPS)) for xr, er in zip(x, engine)]
    lspread = np.max(np.abs(layer_norm[0][both] - layer_norm[1][both]) / np.abs(layer_norm[1][both]))
    print(f"with the mean subtracted (LayerNorm): {lspread:.4f}")


if __name__ == "__main__":
    main()
