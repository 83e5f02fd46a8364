#!/usr/bin/env python3
"""Rewrites a trace (docs/trace-format.md) into one with the most extreme values the trace
reader accepts, for the viewer to draw: the largest vocabulary (ModelArgs::kMaxVocab), every
summary at -inf / +inf / NaN / +-3e38, the first stored values of every tensor NaN, +inf, -inf
and +-3e38 (bfloat16), and the top tokens' logits infinite. A mask keeps its values: the reader
accepts only 0 and -inf there (a mask is checked against what a mask can be).

Usage: make_hostile_trace.py IN.trace OUT.trace"""
import json
import struct
import sys

MAX_VOCAB = 1 << 22  # engine/model/model_args.h
# bfloat16 bit patterns: NaN, +inf, -inf, +3.39e38, -3.39e38
EXTREME_BF16 = [0x7FC0, 0x7F80, 0xFF80, 0x7F7F, 0xFF7F]


def extreme_stats(stats):
    stats["min"], stats["max"], stats["mean"] = "-inf", "inf", "nan"
    stats["first"] = ["nan", "inf", "-inf", 3.0e38, -3.0e38][: max(len(stats.get("first", [])), 1)]


def rewrite(kind, record, data):
    if kind == b"META":
        record["model"]["args"]["vocab_size"] = MAX_VOCAB
    if kind == b"STAG":
        for tensor in record.get("tensors", []):
            if tensor.get("name") == "mask":
                continue
            if "stats" in tensor:
                extreme_stats(tensor["stats"])
            values = tensor.get("values")
            if values and values["encoding"] == "bf16":
                n = min(len(EXTREME_BF16), values["bytes"] // 2)
                for i in range(n):
                    struct.pack_into("<H", data, values["offset"] + 2 * i, EXTREME_BF16[i])
        for top in record.get("top", []) + record.get("topPenalized", []):
            top["logit"] = "inf" if top is record["top"][0] else "-inf"
    return record


def main(src, dst):
    raw = open(src, "rb").read()
    magic = raw[:12]
    out = bytearray(magic)
    pos = 12
    while pos < len(raw):
        kind = raw[pos:pos + 4]
        json_bytes, data_bytes = struct.unpack_from("<IQ", raw, pos + 4)
        pos += 16
        record = json.loads(raw[pos:pos + json_bytes])
        data = bytearray(raw[pos + json_bytes:pos + json_bytes + data_bytes])
        pos += json_bytes + data_bytes
        text = json.dumps(rewrite(kind, record, data)).encode()
        out += kind + struct.pack("<IQ", len(text), len(data)) + text + data
    open(dst, "wb").write(out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
