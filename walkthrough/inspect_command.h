#pragma once
// `llama-walkthrough inspect --model PATH`: what a model on disk is, without running it: the
// summary `run` prints (format, args, weights), its special tokens and every tensor (name, shape,
// dtype, bytes). With --block, one quantized block of a tensor taken apart byte by byte.
#include <CLI/CLI.hpp>

#include <string>
#include <utility>

#include "model/model.h"

namespace llama::cli {

struct InspectOptions {
    std::string model;                      // set to the bundled model by main
    std::pair<std::string, int64_t> block;  // tensor name and row; empty name: the whole model
    int64_t blockIndex = 0;                 // which block of the row
};

CLI::App* addInspectCommand(CLI::App& app, InspectOptions& options);
// Loads the model's metadata and tensor table through the session facade (no weights are read
// unless --block needs one) and prints the inspection.
int runInspect(const InspectOptions& options);
void printModelInspection(const Model& model);
// Throws std::invalid_argument naming the tensor, the row or the block when out of range.
void printBlockInspection(const Model& model, const InspectOptions& options);

}  // namespace llama::cli
