// Training on a recorded run's learning rates (--lr-schedule, train/lr_schedule.h): the warmup as
// always, then the records' rates at their steps and straight lines between them; the file's
// faults named by line; a run that follows a schedule resumes only with the same one.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "cli_run.h"
#include "test_files.h"
#include "train/lr_schedule.h"
#include "train/training_recipe.h"

using namespace llama;

TEST_CASE("lr schedule: the warmup, then the recorded rates at their steps and straight lines between", "[train][lr-schedule]") {
    TrainingRecipe r;
    r.warmup = 4;
    r.lr = 1e-3f;
    r.lrSchedule = {{10, 8e-4f}, {20, 4e-4f}, {30, 1e-4f}};
    // The warmup is train.py's, whatever the records say.
    CHECK(learningRate(r, 0) == 1e-3f * 1 / 4);
    CHECK(learningRate(r, 3) == 1e-3f);
    // Before the first record its rate; a record's rate at its step (step 10 is index 9).
    CHECK(learningRate(r, 4) == 8e-4f);
    CHECK(learningRate(r, 9) == 8e-4f);
    CHECK(learningRate(r, 19) == 4e-4f);
    CHECK(learningRate(r, 29) == 1e-4f);
    // Between records, on the line through them.
    CHECK(learningRate(r, 14) == Approx(6e-4).epsilon(1e-6));
    CHECK(learningRate(r, 12) == Approx(8e-4 - 4e-4 * 3 / 10).epsilon(1e-6));
    CHECK(learningRate(r, 24) == Approx(4e-4 - 3e-4 / 2).epsilon(1e-6));
    // After the last record, its rate.
    CHECK(learningRate(r, 30) == 1e-4f);
    CHECK(learningRate(r, 1000) == 1e-4f);
}

TEST_CASE("lr schedule: train.py's log is read for its rates, and a bad file is named with its line", "[train][lr-schedule]") {
    TempDir dir("lr_schedule");
    // train.py's log.jsonl: its configuration first, then records, some with a held-out loss.
    const std::string log = dir.write("log.jsonl",
                                      "{\"config\": {\"lr\": 0.0015}, \"params\": 9703680}\n"
                                      "{\"step\": 25, \"train_loss\": 7.47, \"lr\": 0.000375, \"tokens\": 102400, \"elapsed\": 96.2}\n\n"
                                      "{\"step\": 100, \"train_loss\": 4.77, \"lr\": 0.0015, \"tokens\": 409600, \"elapsed\": 400.6, \"heldout_loss\": 4.87}\n");
    CHECK(readLrSchedule(log) == std::vector<LrPoint>{{25, 0.000375f}, {100, 0.0015f}});

    auto refused = [&](const std::string& bytes, const std::string& expected) {
        const std::string path = dir.write("bad.jsonl", bytes);
        INFO(bytes);
        REQUIRE_THROWS_WITH(readLrSchedule(path), Catch::Contains(expected));
    };
    refused("", "holds no record");
    refused("{\"params\": 1}\n", "holds no record");
    refused("{\"step\": 25, \"lr\": 0.001}\n{\"step\": 50, \"lr\": 0.001\n", "line 2 is not JSON");
    refused("[25, 0.001]\n", "line 1: expected an object");
    refused("{\"step\": 50, \"lr\": 0.001}\n{\"step\": 25, \"lr\": 0.001}\n", "line 2: \"step\" is 25; expected a whole number of steps above 50");
    refused("{\"lr\": 0.001}\n", "line 1: \"step\" is null");
    refused("{\"step\": 2.5, \"lr\": 0.001}\n", "\"step\" is 2.5");
    refused("{\"step\": 25, \"lr\": \"fast\"}\n", "line 1: \"lr\" is \"fast\"; expected a learning rate from 0 to 1");
    refused("{\"step\": 25, \"lr\": 1e9}\n", "\"lr\" is 1000000000.0");
    refused("{\"step\": 25, \"lr\": -0.001}\n", "\"lr\" is -0.001");
    REQUIRE_THROWS_WITH(readLrSchedule(dir.file("missing.jsonl")), Catch::Contains("missing.jsonl"));
}

TEST_CASE("train --lr-schedule: each step's rate is the schedule's, and a run resumes only with the same schedule", "[train][lr-schedule][cli]") {
    TempDir dir("lr_schedule_cli");
    const std::string schedule = dir.write("lr.jsonl", "{\"step\": 3, \"lr\": 0.001}\n{\"step\": 6, \"lr\": 0.0004}\n");
    const std::string run = "train --tokenizer ../assets/model/tokenizer.model --seq-len 32 --batch 2 --warmup 2 --dim 64 --n-layers 2 --n-heads 4 "
                            "--n-kv-heads 2 --multiple-of 32 --log-every 1 --checkpoint-minutes 1000 --steps 6 --text ../assets/samples.txt --lr 0.002 "
                            "--lr-schedule " + schedule + " --out " + dir.file("out");
    const CliRun a = runWalkthrough(run + " --stop-at 4");
    INFO(a.output);
    REQUIRE(a.exitCode == 0);
    CHECK(contains(a.output, "warmup 2, then 2 recorded rates, 0.001 at step 3 to 0.0004 at step 6"));
    const CliRun b = runWalkthrough(run + " --resume");
    INFO(b.output);
    REQUIRE(b.exitCode == 0);
    // Steps 1 and 2 warm up to --lr; step 3 is the first record's; 4 and 5 on the line to step 6's.
    const std::string lrs[] = {"0.001", "0.002", "0.001", "0.0008", "0.0006", "0.0004"};
    std::istringstream log(readFile(dir.path / "out" / "log.jsonl"));
    int step = 0;
    for (std::string line; std::getline(log, line);) {
        INFO(line);
        REQUIRE(step < 6);
        CHECK(contains(line, "\"step\": " + std::to_string(step + 1) + ","));
        CHECK(contains(line, "\"lr\": " + lrs[step] + ","));
        ++step;
    }
    CHECK(step == 6);
    // Another schedule, or none, is another recipe.
    dir.write("other.jsonl", "{\"step\": 3, \"lr\": 0.001}\n{\"step\": 6, \"lr\": 0.0005}\n");
    std::string other = run;
    other.replace(other.find(schedule), schedule.size(), dir.file("other.jsonl"));
    requireOneClearError(runWalkthrough(other + " --resume"), "lr_schedule");
    std::string none = run;
    none.erase(none.find("--lr-schedule "), std::string("--lr-schedule ").size() + schedule.size());
    requireOneClearError(runWalkthrough(none + " --resume"), "lr_schedule");
    std::string empty = run;
    empty.replace(empty.find(schedule), schedule.size(), dir.write("empty.jsonl", ""));
    requireOneClearError(runWalkthrough(empty + " --force"), "empty.jsonl' holds no record");
}
