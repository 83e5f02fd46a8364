#!/usr/bin/python3
"""Rounds the same 4096 weights to the number formats of chapter 19 and measures what each loses
(standard library only; integer arithmetic and exact float steps, so every machine prints the
same digits).

The weights are pseudo-normal with standard deviation 0.02 (the scale of a trained matrix's
weights): each is the sum of 12 uniform numbers from a fixed linear congruential generator,
minus 6, times 0.02, and one in 512 is made 8 times larger, an outlier as trained matrices have.

- BF16: 8 significant bits, an 8-bit exponent (chapter 4).
- FP8 E4M3 and E5M2 (Micikevicius et al., 2022): 4 significant bits and a 4-bit exponent, largest
  448, or 3 and a 5-bit exponent, largest 57344. Weights as small as these would fall below
  E4M3's normal range, so the tensor is first divided by one scale, max|w| / largest.
- Q8_0 and Q4_0 (chapter 13): blocks of 32 integers and one F16 scale, llama.cpp's reference
  rounding.
- MXFP4 (the OCP Microscaling formats, 2023): blocks of 32 FP4 E2M1 numbers (0, 0.5, 1, 1.5, 2,
  3, 4 or 6, with a sign) and one shared power of two, 2^(floor(log2 max|w|) - 2), stored as an
  8-bit exponent (E8M0).

usage: low_bit_formats.py
"""
import math
import struct

N, BLOCK = 4096, 32


def weights():
    state, out = 12345, []
    for i in range(N):
        total = 0
        for _ in range(12):
            state = (state * 1103515245 + 12345) % 2**31
            total += state
        w = (total / 2**31 - 6) * 0.02
        out.append(w * 8 if i % 512 == 7 else w)
    return out


def round_float(x, mantissa_bits, min_exponent, largest):
    """x to the nearest number with `mantissa_bits` bits after the leading one (ties to even),
    subnormal below 2^min_exponent, saturated at `largest`."""
    if x == 0:
        return 0.0
    exponent = max(math.frexp(abs(x))[1] - 1, min_exponent)
    quantum = 2.0 ** (exponent - mantissa_bits)
    return math.copysign(min(round(abs(x) / quantum) * quantum, largest), x)


def scaled_fp8(ws, mantissa_bits, min_exponent, largest):
    scale = max(abs(w) for w in ws) / largest
    return [round_float(w / scale, mantissa_bits, min_exponent, largest) * scale for w in ws]


def f16(x):
    return struct.unpack("e", struct.pack("e", x))[0]


def q8_0(ws):
    out = []
    for b in range(0, N, BLOCK):
        block = ws[b:b + BLOCK]
        d = max(abs(w) for w in block) / 127
        inv = 1 / d if d else 0
        out += [round(w * inv) * f16(d) for w in block]
    return out


def q4_0(ws):
    out = []
    for b in range(0, N, BLOCK):
        block = ws[b:b + BLOCK]
        peak = max(block, key=abs)  # the value of largest magnitude, with its sign
        d = peak / -8
        inv = 1 / d if d else 0
        out += [(min(15, int(w * inv + 8.5)) - 8) * f16(d) for w in block]
    return out


E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def nearest_e2m1(x):
    """Ties go to the value whose last mantissa bit is 0 (its index in E2M1 is even)."""
    a = min(abs(x), 6.0)
    best = min(range(8), key=lambda i: (abs(E2M1[i] - a), i % 2))
    return math.copysign(E2M1[best], x)


def mxfp4(ws):
    out = []
    for b in range(0, N, BLOCK):
        block = ws[b:b + BLOCK]
        scale = 2.0 ** (math.frexp(max(abs(w) for w in block))[1] - 1 - 2)
        out += [nearest_e2m1(w / scale) * scale for w in block]
    return out


def main():
    ws = weights()
    rms = math.sqrt(sum(w * w for w in ws) / N)
    formats = [
        ("BF16", 16, [round_float(w, 7, -126, 3.4e38) for w in ws]),
        ("FP8 E4M3, one scale", 8, scaled_fp8(ws, 3, -6, 448.0)),
        ("FP8 E5M2, one scale", 8, scaled_fp8(ws, 2, -14, 57344.0)),
        ("Q8_0", 8.5, q8_0(ws)),
        ("Q4_0", 4.5, q4_0(ws)),
        ("MXFP4", 4.25, mxfp4(ws)),
    ]
    print(f"{N} weights, RMS {rms:.4f}, blocks of {BLOCK}")
    print(f"{'format':22} {'bits/weight':>11} {'RMS error / RMS':>16}")
    for name, bits, q in formats:
        err = math.sqrt(sum((a - b) ** 2 for a, b in zip(ws, q)) / N)
        print(f"{name:22} {bits:>11} {err / rms:>16.4f}")


if __name__ == "__main__":
    main()
