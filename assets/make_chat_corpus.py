#!/usr/bin/env python3
"""Chat examples made from the King James Bible (Debian's `bible-kjv`), for supervised
fine-tuning of the bundled model (`llama-walkthrough train --sft`, docs/training.md).

Output (in assets/data/, not committed), one JSON object a line:
  chat_train.jsonl   - one example per verse of Genesis through 3 John
  chat_heldout.jsonl - one example per verse of Jude and Revelation (never trained on, as in
                       make_corpus.py's split)
Each example is {"messages": [{"role": "user", ...}, {"role": "assistant", ...}]}, in one of three
forms, chosen per verse by a seeded generator so the files are the same on every run:
  quote a verse by reference   "Quote Genesis 1:3."  -> the verse
  finish a verse               "Finish the verse: And God said, Let there be light:"
                                                     -> "and there was light."
  name the book of a verse     "Which book says: ...?" -> "Genesis"
"""
import json, os, random

from make_corpus import HELDOUT_BOOKS, OUT, read_verses

# The program's abbreviations, in its order, and the names people use.
BOOKS = dict(zip(
    "Ge Exo Lev Num Deu Josh Jdgs Ruth 1Sm 2Sm 1Ki 2Ki 1Chr 2Chr Ezra Neh Est Job Psa Prv Eccl SSol Isa Jer Lam "
    "Eze Dan Hos Joel Amos Obad Jonah Mic Nahum Hab Zep Hag Zec Mal Mat Mark Luke John Acts Rom 1Cor 2Cor Gal Eph "
    "Phi Col 1Th 2Th 1Tim 2Tim Titus Phmn Heb Jas 1Pet 2Pet 1Jn 2Jn 3Jn Jude Rev".split(),
    ["Genesis", "Exodus", "Leviticus", "Numbers", "Deuteronomy", "Joshua", "Judges", "Ruth", "1 Samuel", "2 Samuel",
     "1 Kings", "2 Kings", "1 Chronicles", "2 Chronicles", "Ezra", "Nehemiah", "Esther", "Job", "Psalms", "Proverbs",
     "Ecclesiastes", "Song of Solomon", "Isaiah", "Jeremiah", "Lamentations", "Ezekiel", "Daniel", "Hosea", "Joel",
     "Amos", "Obadiah", "Jonah", "Micah", "Nahum", "Habakkuk", "Zephaniah", "Haggai", "Zechariah", "Malachi",
     "Matthew", "Mark", "Luke", "John", "Acts", "Romans", "1 Corinthians", "2 Corinthians", "Galatians", "Ephesians",
     "Philippians", "Colossians", "1 Thessalonians", "2 Thessalonians", "1 Timothy", "2 Timothy", "Titus",
     "Philemon", "Hebrews", "James", "1 Peter", "2 Peter", "1 John", "2 John", "3 John", "Jude", "Revelation"]))
QUOTE = ["Quote {ref}.", "What does {ref} say?", "Recite {ref}.", "Give me {ref}."]


def example(rng, book, chapter, verse, text):
    ref = f"{BOOKS[book]} {chapter}:{verse}"
    words = text.split(" ")
    form = rng.random()
    if form < 0.3 and len(words) >= 8:
        cut = len(words) // 2
        user, reply = "Finish the verse: " + " ".join(words[:cut]), " ".join(words[cut:])
    elif form < 0.45:
        user, reply = f"Which book says: {text}", BOOKS[book]
    else:
        user, reply = rng.choice(QUOTE).format(ref=ref), text
    return {"messages": [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]}


def main():
    verses = read_verses()
    books = list(dict.fromkeys(v[0] for v in verses))
    assert books == list(BOOKS), books
    rng = random.Random(1234)
    os.makedirs(OUT, exist_ok=True)
    examples = [(v[0] in HELDOUT_BOOKS, example(rng, *v)) for v in verses]
    for name, heldout in (("chat_train.jsonl", False), ("chat_heldout.jsonl", True)):
        lines = [json.dumps(e, ensure_ascii=False) + "\n" for held, e in examples if held == heldout]
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
            f.writelines(lines)
        print(f"{name}: {len(lines)} examples, {sum(len(l.encode()) for l in lines)} bytes")


if __name__ == "__main__":
    main()
