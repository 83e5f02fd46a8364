"""A wrong solution made from a right one by one edit, so that the wrong solutions of the long
labs (7, 8) are a line each, not copies: mutant("lab8_block_backward.py", old, new) returns the
reference (a path relative to tests/labs_reference/) with `old` replaced by `new`, as a module;
further (old, new) pairs after them make a mistake that takes several edits. Each `old` must
occur exactly once: a reference edited so that it no longer does fails loudly."""
import os
import sys
import types

REFERENCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mutant(path, old, new, *more):
    full = os.path.join(REFERENCE, path)
    source = open(full).read()
    for old, new in ((old, new), *more):
        if source.count(old) != 1:
            raise SystemExit(f"{path} holds {source.count(old)} copies of {old!r}, not one: update this wrong solution")
        source = source.replace(old, new)
    sys.path.insert(0, os.path.dirname(full))
    module = types.ModuleType(os.path.splitext(os.path.basename(path))[0] + "_mutant")
    module.__file__ = full
    exec(compile(source, full, "exec"), module.__dict__)
    return module
