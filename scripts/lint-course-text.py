#!/usr/bin/python3
"""Checks the course's Markdown pages for what a reader would trip over and no other test sees
(standard library only; run by `make test`):
- every GFM table (in chapters/, docs/ and README.md) has as many cells in each row as in its
  header: GitHub does not draw a table whose delimiter row differs, and drops a body row's extra
  cells;
- the counts chapters/README.md states (chapters, exercises, exercises that ask for a prediction)
  are the chapters' own;
- no chapter speaks of work still to come: no "not run here (yet)", no issue numbers.
Prints each problem as FILE:LINE: what, and exits 1 if there is any.
usage: scripts/lint-course-text.py [ROOT]"""
import os
import re
import sys

NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                "eighteen", "nineteen", "twenty"]
TENS = {"twenty": 20, "thirty": 30}


def number(word):
    """'65', 'three' or 'Twenty-two' as an int; None when it is none of these."""
    w = word.lower()
    if w.isdigit():
        return int(w)
    if w in NUMBER_WORDS:
        return NUMBER_WORDS.index(w)
    tens, _, unit = w.partition("-")
    if tens in TENS and unit in NUMBER_WORDS[1:10]:
        return TENS[tens] + NUMBER_WORDS.index(unit)
    return None


def cells(row):
    """A table row's cells as GFM splits them: at every '|' not escaped by a backslash (inside
    code spans too), the optional outer pipes dropped."""
    parts = re.split(r"(?<!\\)\|", row.strip())
    if parts and parts[0].strip() == "":
        parts = parts[1:]
    if parts and parts[-1].strip() == "":
        parts = parts[:-1]
    return parts


def is_delimiter(row):
    c = cells(row)
    return "|" in row and len(c) > 0 and all(re.fullmatch(r"\s*:?-+:?\s*", x) for x in c)


def table_problems(text):
    """(line number, message) for each table row whose cell count is not its header's."""
    problems = []
    lines = text.split("\n")
    fence = None
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        m = re.match(r"(`{3,}|~{3,})", stripped)
        if m:
            if fence is None:
                fence = m.group(1)[0] * len(m.group(1))
            elif stripped.startswith(fence) and stripped.strip(fence[0]) == "":
                fence = None
            i += 1
            continue
        # A header row: contains a pipe, and the next line looks like a delimiter row (whatever
        # its cell count: a count that differs is exactly what GitHub refuses to draw).
        if fence is None and "|" in stripped and i + 1 < len(lines) and is_delimiter(lines[i + 1]):
            width = len(cells(stripped))
            j = i + 1
            while j < len(lines) and "|" in lines[j] and lines[j].strip():
                n = len(cells(lines[j]))
                if n != width:
                    what = "delimiter row" if j == i + 1 else "row"
                    problems.append((j + 1, f"table {what} has {n} cells, its header {width}"))
                j += 1
            i = j
            continue
        i += 1
    return problems


def exercises(text):
    """The exercises of a chapter: (all, those whose question asks for a prediction). A question
    runs from its 'N. ' to its folded check, as tests/chapters_outline_test.cpp reads it."""
    at = text.find("\n## Exercises\n")
    if at < 0:
        return 0, 0
    section = text[at:]
    end = section.find("\n## ", 1)
    section = section[:end] if end >= 0 else section
    questions = re.findall(r"\n\d+\. ([\s\S]*?)<details>", section)
    return len(questions), sum(1 for q in questions if re.search("[Pp]redict", q))


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    problems = []

    # The check must see a broken table, or it checks nothing.
    assert table_problems("| a | b |\n|---|---|---|\n| 1 | 2 |\n") == [(2, "table delimiter row has 3 cells, its header 2")]
    assert table_problems("| a | `b|c` |\n|---|---|---|\n| 1 | 2 | 3 |\n") == []

    pages = [os.path.join(root, "README.md")]
    for folder in ("chapters", "docs"):
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            pages += [os.path.join(dirpath, f) for f in files if f.endswith(".md")]
    tables = 0
    for page in sorted(pages):
        with open(page, encoding="utf-8") as f:
            text = f.read()
        tables += sum(1 for line in text.split("\n") if is_delimiter(line))
        for line, what in table_problems(text):
            problems.append(f"{os.path.relpath(page, root)}:{line}: {what}")

    chapters_dir = os.path.join(root, "chapters")
    chapters = sorted(f for f in os.listdir(chapters_dir) if re.fullmatch(r"\d\d-.*\.md", f))
    total = predict = 0
    for name in chapters:
        with open(os.path.join(chapters_dir, name), encoding="utf-8") as f:
            text = f.read()
        n, p = exercises(text)
        total, predict = total + n, predict + p
        # Across line breaks: a paragraph may wrap between "issue" and its number.
        for pattern, what in ((r"not\s+run\s+here\s+\(yet\)", "\"not run here (yet)\": say what runs here, or that it does not"),
                              (r"\bissues?\s+#?\d+|(^|\s)#\d+\b", "an issue number: the course speaks of the engine as it is")):
            for m in re.finditer(pattern, text, re.I):
                problems.append(f"chapters/{name}:{text.count(chr(10), 0, m.start()) + 1}: {what}")

    outline_path = os.path.join(chapters_dir, "README.md")
    with open(outline_path, encoding="utf-8") as f:
        outline = f.read()
    stated = re.search(r"([\w-]+)\s+chapters\s+follow", outline)
    if not stated or number(stated.group(1)) != len(chapters):
        problems.append(f"chapters/README.md: says \"{stated.group(0) if stated else '? chapters follow'}\"; there are {len(chapters)}")
    counts = re.search(r"(\d+)\s+of\s+the\s+(\d+)\s+exercises\s+ask\s+for\s+a\s+prediction;\s+the\s+other\s+([\w-]+)\s+ask", outline)
    if not counts:
        problems.append("chapters/README.md: no \"N of the M exercises ask for a prediction; the other K ask\" to check")
    else:
        said = (int(counts.group(1)), int(counts.group(2)), number(counts.group(3)))
        if said != (predict, total, total - predict):
            problems.append(f"chapters/README.md: says \"{' '.join(counts.group(0).split())}\"; the chapters have {total} exercises, "
                            f"{predict} asking for a prediction, {total - predict} other")

    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s)")
        return 1
    print(f"{len(pages)} pages, {tables} tables, {len(chapters)} chapters with {total} exercises ({predict} predictions): no problem")
    return 0


if __name__ == "__main__":
    sys.exit(main())
