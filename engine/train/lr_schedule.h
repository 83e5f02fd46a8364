#pragma once
// A recorded run's learning rates, to train with in place of the cosine: the JSON lines
// assets/train.py logs (its log.jsonl; assets/shipped_lr.py writes the bundled model's run's from
// train.log). Each record with an "lr" says which rate the last of the first "step" steps used;
// other records (train.py's first line, its configuration) are passed over.
#include <string>
#include <vector>

#include "train/training_recipe.h"

namespace llama {

// Errors name the file and the line: a line that is not a JSON object, a record whose "step" is
// not a whole number above the last record's or whose "lr" is not a finite number from 0 to 1,
// a file with no record.
std::vector<LrPoint> readLrSchedule(const std::string& path);

}  // namespace llama
