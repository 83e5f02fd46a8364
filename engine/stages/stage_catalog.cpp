#include "stages/stage_catalog.h"

namespace llama {

namespace {
constexpr std::string_view kForward = "10-forward-pass.md";
constexpr std::string_view kLoop = "09-generation-loop.md";
constexpr std::string_view kOutput = "11-output-and-sampling.md";
constexpr std::string_view kTraining = "21-training.md";
constexpr bool kInBlock = true, kOutside = false;

const std::vector<StageInfo> kCatalog = {
#define STAGE(id, key, number, title, chapter, place, records, fields, wording, skipped) \
    {StageId::id, key, number, title, chapter, place, records, wording, skipped},
#include "stages/stages.def"
#undef STAGE
};
}  // namespace

const std::vector<StageInfo>& stageCatalog() { return kCatalog; }

// The enum and the table are both made from stages.def, so they are in the same order.
const StageInfo& stageInfo(StageId id) { return kCatalog[static_cast<size_t>(id)]; }

const StageInfo* findStage(std::string_view key) {
    for (const auto& s : kCatalog)
        if (s.key == key) return &s;
    return nullptr;
}

}  // namespace llama
