"""Reads the tables the stepper's `p NAME [INDEX]` prints (chapter 10, "Try it") from its output,
for the coding exercises' reference solutions: each table becomes a dict from row index to the
numbers of its first visible columns (those before the `…` that marks the hidden middle)."""
import re
import sys

ROW = re.compile(r'^\[(\d+)\](?:\s+"[^"]*")?\s+(.*)$')


def number(text):
    return float("-inf") if text == "-inf" else float(text)


def read_tables(text=None):
    text = sys.stdin.read() if text is None else text
    tables, current = [], None
    for line in text.splitlines():
        if line.startswith("step> p "):
            current = {}
            tables.append(current)
            continue
        if line.startswith("step>"):
            current = None
        m = ROW.match(line.strip())
        if current is not None and m:
            visible = m.group(2).split("…")[0].split()
            current[int(m.group(1))] = [number(v) for v in visible]
    return tables


def show(values):
    return " ".join(f"{v:.4g}" for v in values)
