#pragma once
// The stages of inference, numbered as the walkthrough's diagrams number them, and the one table
// that says everything else about each: its key, title, chapter, whether it happens inside a
// transformer block, which tensors it hands to observers, and the wording of its log line(s).
// Every line the debug log writes belongs to one of these; chapters/ has a section for each.
#include <string_view>
#include <vector>

namespace llama {

// In the order they run; the walkthrough's stage number is in the catalog.
enum class StageId {
    Tokenize,
    TokensTensor,
    SequenceLoop,
    InputEmbeddings,
    FreqsCis,
    Mask,
    BlockForward,
    AttentionNorm,
    AttentionForward,
    QKV,
    ReshapeHeads,
    Rotary,
    CacheWrite,
    CacheRead,
    RepeatKV,
    Transposes,
    ScoresMatMul,
    ScoresScale,
    ScoresMask,
    ScoresSoftmax,
    AttentionValues,
    AttentionReshape,
    AttentionWo,
    AttentionResidual,
    FfnNorm,
    FfnGate,
    FfnSilu,
    FfnUp,
    FfnMultiply,
    FfnDown,
    FfnResidual,
    OutputNorm,
    OutputProjection,
    Logits,
    Sample,
};

struct StageInfo {
    StageId id;
    std::string_view key;      // stable id, e.g. "scores_softmax"
    int number;                // the walkthrough's stage number
    std::string_view title;
    std::string_view chapter;  // chapters/ file that explains it, e.g. "10-forward-pass.md"
    bool inBlock;              // happens inside a transformer block (once per layer)
    std::string_view records;  // the fields observers receive as tensors, comma-separated
    // The log line(s), '\n'-separated, in the walkthrough's words: {name} is a field of the
    // stage's mark (a tensor prints as its shape). `skipped` is the wording when the operation
    // did not run (no mask to add, no KV heads to repeat, no logits in a dry run).
    std::string_view wording;
    std::string_view skipped = {};
};

const StageInfo& stageInfo(StageId id);
const std::vector<StageInfo>& stageCatalog();
// nullptr when no stage has that key.
const StageInfo* findStage(std::string_view key);

}  // namespace llama
