#pragma once
// `llama-walkthrough inspect --model PATH`: what a model on disk is, without running it: the
// summary `run` prints (format, args, weights), its special tokens and every tensor (name, shape,
// dtype, bytes).
#include <CLI/CLI.hpp>

#include <string>

#include "model/model.h"

namespace llama::cli {

CLI::App* addInspectCommand(CLI::App& app, std::string& modelPath);
void printModelInspection(const Model& model);

}  // namespace llama::cli
