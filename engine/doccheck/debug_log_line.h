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

struct DebugLine {
    int lineNo = 0;       // in the file it was read from
    std::string message;  // without timestamp and duration
    std::string stage;    // stage key, or "" for lines no stage writes
    int layer = 0;        // 1-based as the log prints it ("layer: 1 / 32"); 0 outside the blocks
    int startPos = -1;    // of the forward pass, from the last "startPos: N" seen; -1 before any
    std::vector<std::pair<std::string, Shape>> shapes;  // each shape(...) with the name written before it
    std::string signature;  // the message with shapes, numbers and quoted text blanked: what pairs lines
    std::string exactText;  // the message with only the shapes blanked: prefers the same positions
};

// Every [DEBUG] line of the stream, anywhere on the line (documents indent or quote them),
// except separator lines without a letter or digit ("[DEBUG] ... =========").
std::vector<DebugLine> readDebugLines(std::istream& in);
std::vector<DebugLine> readDebugLinesFile(const std::string& path);

// The keys of the stages whose wording (engine/stages/stage_catalog.cpp, the walkthrough's)
// can write this message; empty for a line no stage writes.
std::vector<std::string> stagesOfMessage(const std::string& message);

// "xq=[22 32 128], keys=[32 128 22]"
std::string formatShapes(const std::vector<std::pair<std::string, Shape>>& shapes);

}  // namespace llama
