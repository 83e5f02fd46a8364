#pragma once
// `llama-walkthrough train --text FILE --out DIR`: trains a Llama from a random initialisation
// (or from an existing model's weights, --init-from) on a text file with the engine's own
// backward pass (engine/train), assets/train.py's recipe with the bundled model's settings as
// defaults; or, with --sft FILE in place of --text, fine-tunes on chat examples, scoring only the
// assistant's replies. The first step can be logged in the
// walkthrough's format (--debug-log) or stepped through stage by stage (--step), the backward
// stages included. A checkpoint in --out (every few minutes, at Ctrl-C and at the end) resumes
// with --resume to the same bits as a run never stopped.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "train/training_recipe.h"

namespace llama::cli {

struct TrainOptions {
    std::string text;
    std::string sft;  // chat examples (JSON lines) to fine-tune on, in place of text
    std::string heldout;
    std::string tokenizer = "assets/model/tokenizer.model";
    std::string out;
    bool force = false;
    TrainingRecipe recipe;
    std::string lrSchedule;  // a recorded run's learning rates (train/lr_schedule.h), read into recipe by runTrain
    // The model's shape: the bundled model's unless changed.
    int dim = 256, nLayers = 8, nHeads = 8, nKVHeads = 2, multipleOf = 256;
    double ffnDimMultiplier = 1.3, ropeTheta = 500000.0;
    std::string debugLog;
    std::string trace;    // windows of a step, forward and backward (training_trace.h)
    std::string traceAt;  // which: STEP:WINDOWS ("": the run's first step's first window)
    bool step = false;
    int logEvery = 25;
    double checkpointMinutes = 4;
    bool resume = false;
    int stopAt = 0;  // 0: run all the steps
    bool profile = false;
    // LoRA fine-tuning of --model (lora_train_command.h) when loraRank > 0.
    std::string model;
    int loraRank = 0;
    double loraAlpha = 0;  // 0: the rank (scale 1)
    std::string loraTargets = "wq,wv";
    std::vector<std::string> given;  // the shape flags and --tokenizer, when given: --init-from checks them against its model
};

CLI::App* addTrainCommand(CLI::App& app, TrainOptions& options);
int runTrain(const TrainOptions& options);

}  // namespace llama::cli
