#pragma once
// The stages of inference, numbered as the walkthrough's diagrams number them, and the one table
// (stages.def) that says everything else about each: its key, title, chapter, whether it happens
// inside a transformer block, which tensors it hands to observers, and the wording of its log
// line(s). Every line the debug log writes belongs to one of these; chapters/ has a section for each.
#include <string_view>
#include <vector>

namespace llama {

// In the order they run (stages.def).
enum class StageId {
#define STAGE(id, ...) id,
#include "stages/stages.def"
#undef STAGE
};

struct StageInfo {
    StageId id;
    // What each field holds is said in stages.def.
    std::string_view key;
    int number;
    std::string_view title;
    std::string_view chapter;
    bool inBlock;
    std::string_view records;
    std::string_view wording;
    std::string_view skipped;
};

const StageInfo& stageInfo(StageId id);
const std::vector<StageInfo>& stageCatalog();
// nullptr when no stage has that key.
const StageInfo* findStage(std::string_view key);
// A stage of training (the loss and the backward pass, engine/train): stages.def lists them last.
inline bool isTrainingStage(StageId id) { return id >= StageId::Loss; }

}  // namespace llama
