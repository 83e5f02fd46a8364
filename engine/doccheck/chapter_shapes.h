#pragma once
// Reads the stage sections of chapters/*.md: an anchor comment `<!-- stage: KEY -->` and, after
// it, a fenced block tagged `shapes` listing the tensors the engine passes with that stage:
//
//     ```shapes
//     xq: [seqLen, N_Heads, HeadDim] BF16
//     mask: [seqLen, startPos+seqLen] BF16 when seqLen > 1
//     # comment lines start with '#'; a stage without tensors has an empty block
//     ```
//
// Tests evaluate these against real forward passes, so the text cannot drift from the code.
#include <string>
#include <vector>

#include "doccheck/shape_formula.h"

namespace llama {

struct DocumentedTensor {
    std::string name;
    std::string shape;      // as written, e.g. "[seqLen, N_Heads, HeadDim]"
    std::string dtype;      // as dtypeName() spells it: F32, BF16, Complex64, Int32
    std::string condition;  // empty: always present
    int line = 0;
};

struct StageSection {
    std::string stageKey;
    std::string file;  // file name only, e.g. "10-forward-pass.md" (what the stage catalog names)
    int line = 0;      // of the anchor
    bool hasShapesBlock = false;
    std::vector<DocumentedTensor> tensors;
};

// Throws std::runtime_error naming file:line for a malformed shapes line, a shapes block that
// follows no anchor, or a second block under one anchor.
std::vector<StageSection> parseChapterSections(const std::string& path);
// Every *.md of the directory, in file-name order.
std::vector<StageSection> parseChaptersDir(const std::string& dir);

struct ExpectedTensor {
    std::string name;
    Shape shape;
    std::string dtype;
};
// The section's tensors evaluated with `symbols`; those whose condition is false are left out.
// Formula errors are rethrown with the file and line in front.
std::vector<ExpectedTensor> expectedTensors(const StageSection& section, const ShapeSymbols& symbols);

}  // namespace llama
