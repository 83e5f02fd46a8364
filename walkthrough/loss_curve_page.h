#pragma once
// The loss curve of a training run as a page: an SVG drawing (training loss as a line, held-out
// loss as dots, steps across, nats per token up) in one self-contained HTML file.
#include <optional>
#include <string>
#include <vector>

namespace llama::cli {

struct LossRecord {
    int step = 0;
    double trainLoss = 0;  // mean over the steps since the previous record
    double lr = 0;
    int64_t tokens = 0;
    double elapsed = 0;    // seconds since the run began
    std::optional<double> heldoutLoss;
};

// One line of log.jsonl, in assets/train.py's keys; and back (nullopt: not such a line).
std::string lossRecordJson(const LossRecord& r);
std::optional<LossRecord> parseLossRecord(const std::string& line);

// The curve's scale, shared by the page and the PNG: steps from 0 to lastStep across, whole nats
// from low to high up.
struct LossAxes {
    int lastStep = 1;
    double low = 0, high = 1;
};
LossAxes lossAxes(const std::vector<LossRecord>& records);

std::string lossCurvePage(const std::vector<LossRecord>& records, const std::string& title);

}  // namespace llama::cli
