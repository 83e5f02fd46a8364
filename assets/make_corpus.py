#!/usr/bin/env python3
"""Build the King James Bible corpus from the Debian package `bible-kjv`.

Output (in assets/data/, not committed):
  train.txt  - every book from Genesis through 3 John
  heldout.txt - Jude and Revelation (never trained on)
Each chapter is one document; documents are separated by a line holding
only "\f" (form feed) in the files. Inside a document there is one verse per
line, the reference prefix ("Ge1:1 ") stripped.
"""
import os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data")
HELDOUT_BOOKS = {"Jude", "Rev"}   # the last two books of the Bible

def read_verses():
    """Every verse of the King James Bible as (book, chapter, verse, text), in order; book is the
    program's abbreviation ("Ge", "1Sm", "Rev")."""
    raw = subprocess.run(["bible", "-f", "-l", "0"], input="Gen1:1-Rev22:21\n",
                         capture_output=True, text=True, check=True).stdout
    lines = raw.split("\n")
    # the program prints Ge1:1 once as a banner before the prompt; skip
    # everything up to and including the echoed command line
    start = next(i for i, l in enumerate(lines) if l.startswith("bible(KJV)") and "Gen1:1-Rev22:21" in l)
    verse_re = re.compile(r"^([1-3]?[A-Za-z]+)(\d+):(\d+) (.*)$")
    verses = []
    for l in lines[start + 1:]:
        m = verse_re.match(l)
        if m:
            verses.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4).strip()))
    assert len(verses) == 31102, len(verses)
    return verses

def main():
    chapters = []          # (book, chapter, [verses])
    for book, ch, vs, text in read_verses():
        if not chapters or chapters[-1][0] != book or chapters[-1][1] != ch:
            chapters.append((book, ch, []))
        chapters[-1][2].append(text)
    os.makedirs(OUT, exist_ok=True)
    train = [c for c in chapters if c[0] not in HELDOUT_BOOKS]
    held = [c for c in chapters if c[0] in HELDOUT_BOOKS]
    for name, chs in (("train.txt", train), ("heldout.txt", held)):
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
            f.write("\f\n".join("".join(v + "\n" for v in c[2]) for c in chs))
        print(f"{name}: {len(chs)} chapters, {sum(len(c[2]) for c in chs)} verses, "
              f"{sum(len(''.join(v + chr(10) for v in c[2]).encode()) for c in chs)} bytes")

def load_docs(name):
    """Return the list of chapter documents (strings) of data/<name>.txt."""
    with open(os.path.join(OUT, name + ".txt"), encoding="utf-8") as f:
        return f.read().split("\f\n")

if __name__ == "__main__":
    main()
