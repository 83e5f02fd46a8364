#pragma once
// Reads lines in the walkthrough's debug-log format, "[DEBUG]HH:MM:SS.micro message (N.NNNN secs)",
// from a log file or from a document quoting one (timestamps may be elided as "...", the
// duration may be missing). Each line is tagged with the stage that writes it, the layer it was
// written in, and its shapes, so that a document and a log can be paired line by line.
#include <istream>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace llama {

// A value written in a line besides its shapes: a number (or a run of them: "1 / 32", a token
// list), quoted text, a dtype word or the target tensor after "-> tensor", with the word it is
// written after ("startPos", "dim", "token") or "dtype" / "target".
struct LineValue {
    std::string name;
    std::string text;
    bool operator==(const LineValue&) const = default;
};

struct DebugLine {
    int lineNo = 0;       // in the file it was read from
    std::string message;  // without timestamp and duration
    std::string stage;    // stage key, or "" for lines no stage writes
    int layer = 0;        // 1-based as the log prints it ("layer: 1 / 32"); 0 outside the blocks
    int startPos = -1;    // of the forward pass, from the last "startPos: N" seen; -1 before any
    std::vector<std::pair<std::string, Shape>> shapes;  // each shape(...) with the name written before it
    std::vector<LineValue> values;                      // in the order written
    std::string signature;  // the message with shapes and values blanked: what pairs lines
    std::string exactText;  // the message with only the shapes blanked: prefers the same positions
};

// Every [DEBUG] line of the stream, anywhere on the line (documents indent or quote them),
// except separator lines without a letter or digit ("[DEBUG] ... =========").
std::vector<DebugLine> readDebugLines(std::istream& in);
std::vector<DebugLine> readDebugLinesFile(const std::string& path);

// The keys of the stages whose wording (engine/stages/stage_catalog.cpp, the walkthrough's)
// can write this message; empty for a line no stage writes.
std::vector<std::string> stagesOfMessage(const std::string& message);

// "startPos=0, target=xq"
std::string formatValues(const std::vector<LineValue>& values);
// "xq=[22 32 128], keys=[32 128 22]"
std::string formatShapes(const std::vector<std::pair<std::string, Shape>>& shapes);

}  // namespace llama
