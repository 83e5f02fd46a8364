// Stage 8's three tasks: each is marked when scheduled (on the block's thread, in the order xq,
// xk, xv) and again from inside the task when it starts; observers get one mark at a time. Every
// way the build can launch them (ml/task_launch.h) is run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "generate/generator.h"
#include "ml/task_launch.h"
#include "model/synthetic.h"

using namespace llama;
using ml::Launch;

namespace {
std::vector<Launch> qkvLaunchWays() {
    if (!ml::kBuildHasThreads) return {Launch::Deferred};
    return {Launch::NewThread, Launch::KeptThreads, Launch::Deferred};
}

// The model's tasks launched `how` while it lives.
struct LaunchedAs {
    explicit LaunchedAs(Launch how) { ml::setDefaultLaunch(how); }
    ~LaunchedAs() { ml::setDefaultLaunch(std::nullopt); }
};

struct Mark {
    StageId stage;
    int layer, step;
    std::string target;
    std::thread::id thread;
};

class MarkRecorder : public StageObserver {
public:
    std::vector<Mark> marks;
    int overlaps = 0;
    void onStage(const StageEvent& e) override {
        if (inside_.fetch_add(1) != 0) ++overlaps;
        std::string target;
        for (const StageField& f : e.fields)
            if (std::string_view(f.name) == "target") target = std::get<std::string>(f.value);
        std::this_thread::yield();  // widen the window a second delivery would need
        marks.push_back({e.stage, e.layer, e.step, target, std::this_thread::get_id()});
        inside_.fetch_sub(1);
    }

private:
    std::atomic<int> inside_{0};
};
}  // namespace

TEST_CASE("qkv tasks: scheduled in order, started where their way runs them, delivered one at a time", "[step][model]") {
    Model model = makeSyntheticModel("tiny", 3, false);
    LlamaTransformer transformer(model);
    for (Launch how : qkvLaunchWays()) {
        INFO(ml::launchName(how));
        const LaunchedAs launched(how);
        InferenceContext ctx(model.args);
        MarkRecorder recorder;
        ctx.addObserver(&recorder);
        Sampler sampler(SamplingSettings{});
        Generator(transformer, *model.tokenizer).generate(ctx, "Hi there", 3, sampler, {});
        const auto engineThread = std::this_thread::get_id();

        CHECK(recorder.overlaps == 0);
        // Per (step, layer): the schedule marks, the task marks and where the results come.
        std::map<std::pair<int, int>, std::vector<const Mark*>> byBlock;
        for (const Mark& m : recorder.marks)
            if (m.stage == StageId::QKVSchedule || m.stage == StageId::QKVTask || m.stage == StageId::QKV) byBlock[{m.step, m.layer}].push_back(&m);
        REQUIRE(byBlock.size() == size_t(3 * model.args.n_layers));
        for (const auto& [where, marks] : byBlock) {
            INFO("step " << where.first << ", layer " << where.second);
            REQUIRE(marks.size() == 7);
            std::vector<std::string> scheduled, started;
            for (size_t i = 0; i < marks.size(); ++i) {
                const Mark& m = *marks[i];
                if (m.stage == StageId::QKVSchedule) {
                    CHECK(m.thread == engineThread);
                    scheduled.push_back(m.target);
                } else if (m.stage == StageId::QKVTask) {
                    // A new thread per task never runs on the block's thread; a deferred task always does (a
                    // kept thread's task may run on either: on the asker when no kept thread took it first).
                    if (how == Launch::NewThread) CHECK(m.thread != engineThread);
                    if (how == Launch::Deferred) CHECK(m.thread == engineThread);
                    // A task starts only after it was scheduled.
                    CHECK(std::find(scheduled.begin(), scheduled.end(), m.target) != scheduled.end());
                    started.push_back(m.target);
                } else {
                    CHECK(i == marks.size() - 1);  // the results come last
                    CHECK(m.thread == engineThread);
                }
            }
            CHECK(scheduled == std::vector<std::string>{"xq", "xk", "xv"});
            if (how == Launch::Deferred) CHECK(started == scheduled);  // each when its result is asked for, in that order
            CHECK(std::set<std::string>(started.begin(), started.end()) == std::set<std::string>{"xq", "xk", "xv"});
        }
    }
}

namespace {
// Stops the run at the n-th Q/K/V launch of the first block (its QKVSchedule mark) and counts the
// tasks that got as far as their own mark, each held there a while so that one still running
// when the stop leaves the pass would be seen.
class StopAtLaunch : public StageObserver {
public:
    explicit StopAtLaunch(int n) : n_(n) {}
    std::atomic<int> tasksMarked{0};
    void onStage(const StageEvent& e) override {
        if (e.stage == StageId::QKVTask) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            ++tasksMarked;
        }
        if (e.stage == StageId::QKVSchedule && ++launches_ == n_) throw GenerationStopped{};
    }

private:
    int n_, launches_ = 0;
};
}  // namespace

TEST_CASE("qkv tasks: a stop at any of the three launches waits for the tasks already launched", "[step][model][task_threads]") {
    Model model = makeSyntheticModel("tiny", 3, false);
    LlamaTransformer transformer(model);
    for (Launch how : qkvLaunchWays()) {
        const LaunchedAs launched(how);
        for (int n = 1; n <= 3; ++n) {
            INFO(ml::launchName(how) << ", stopped at launch " << n);
            InferenceContext ctx(model.args);
            StopAtLaunch stopper(n);
            ctx.addObserver(&stopper);
            Sampler sampler(SamplingSettings{});
            CHECK(Generator(transformer, *model.tokenizer).generate(ctx, "Hi there", 3, sampler, {}).stopReason == StopReason::Stopped);
            // Launches before the n-th ran their tasks on threads; each task's mark was delivered (and
            // the task finished) before the stop left the pass and freed its input. A deferred task
            // runs only when its result is asked for, which the stop came before.
            CHECK(stopper.tasksMarked.load() == (how == Launch::Deferred ? 0 : n - 1));
        }
    }
}
