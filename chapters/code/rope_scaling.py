#!/usr/bin/python3
"""Chapter 19: how four ways of stretching RoPE to a longer context change each pair's frequency.

For Llama 3's RoPE (HeadDim 128, theta 500000, trained on 8192 positions) stretched 8 times,
prints for a few pairs k their wavelength (the positions one full turn takes, 2 pi / f_k) and
the factor by which each method divides f_k:
  PI       position interpolation (Chen et al. 2023): every frequency divided by the factor s;
  NTK      "NTK-aware" scaling (bloc97, 2023): theta replaced by theta * s^(d / (d - 2)), which
           leaves the fastest pair alone and divides the slowest by s;
  YaRN     (Peng et al. 2023): pairs that turn more than beta = 32 times over the original context
           kept, those that turn less than alpha = 1 time divided by s, a linear ramp between;
           plus a softmax temperature, the scores multiplied by (0.1 ln s + 1)^2;
  Llama3.1 Meta's rule (llama/model.py apply_scaling): wavelengths under 8192 / 4 kept, over
           8192 / 1 divided by s, a smooth ramp between. The engine computes this one
           (engine/model/rope.cpp), checked against assets/golden/rope_scaling.json.
usage: rope_scaling.py [FACTOR]"""
import math
import sys

HEAD_DIM, THETA, CONTEXT = 128, 500000.0, 8192


def base(k):
    return THETA ** (-2 * k / HEAD_DIM)


def pi(k, s):
    return base(k) / s


def ntk(k, s):
    return (THETA * s ** (HEAD_DIM / (HEAD_DIM - 2))) ** (-2 * k / HEAD_DIM)


def yarn(k, s, alpha=1.0, beta=32.0):
    turns = CONTEXT / (2 * math.pi / base(k))  # full turns over the original context
    ramp = min(1.0, max(0.0, (turns - alpha) / (beta - alpha)))
    return (1 - ramp) * base(k) / s + ramp * base(k)


def llama31(k, s, low=1.0, high=4.0):
    wavelength = 2 * math.pi / base(k)
    if wavelength < CONTEXT / high:
        return base(k)
    if wavelength > CONTEXT / low:
        return base(k) / s
    smooth = (CONTEXT / wavelength - low) / (high - low)
    return (1 - smooth) * base(k) / s + smooth * base(k)


def main():
    s = float(sys.argv[1]) if len(sys.argv) > 1 else 8.0
    print(f"HeadDim {HEAD_DIM}, theta {THETA:g}, trained on {CONTEXT} positions, stretched {s:g} times")
    print("frequency divided by:")
    print(f"{'pair':>5} {'wavelength':>12} {'PI':>6} {'NTK':>6} {'YaRN':>6} {'Llama3.1':>9}")
    for k in (0, 8, 16, 24, 32, 40, 44, 48, 56, 63):
        f = base(k)
        row = [f / m(k, s) for m in (pi, ntk, yarn, llama31)]
        print(f"{k:>5} {2 * math.pi / f:>12.1f} " + " ".join(f"{r:>6.2f}" for r in row[:3]) + f" {row[3]:>9.2f}")
    print(f"YaRN's softmax temperature: scores times {(0.1 * math.log(s) + 1) ** 2:.3f}")


if __name__ == "__main__":
    main()
