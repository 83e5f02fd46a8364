#pragma once
// The stages of inference, numbered as the walkthrough's diagrams number them. Every line the
// debug log writes belongs to one of these; chapters/ has a section for each (by id).
#include <string_view>
#include <vector>

namespace llama {

enum class StageId {
    Tokenize,            // 1
    TokensTensor,        // 2
    SequenceLoop,        // 3
    InputEmbeddings,     // 4
    FreqsCis,            // 4
    Mask,                // 4
    BlockForward,        // 5
    AttentionNorm,       // 6
    AttentionForward,    // 7
    QKV,                 // 8
    ReshapeHeads,        // 9
    Rotary,              // 10
    CacheWrite,          // 11
    CacheRead,           // 11
    RepeatKV,            // 11
    Transposes,          // 12
    ScoresMatMul,        // 13
    ScoresScale,         // 13
    ScoresMask,          // 13
    ScoresSoftmax,       // 13
    AttentionValues,     // 14
    AttentionReshape,    // 14
    AttentionWo,         // 14
    AttentionResidual,   // 15
    FfnNorm,             // 16
    FfnGate,             // 17
    FfnSilu,             // 17
    FfnUp,               // 17
    FfnMultiply,         // 17
    FfnDown,             // 17
    FfnResidual,         // 18
    OutputNorm,          // 19
    OutputProjection,    // 19
    Logits,              // 19
    Sample,              // 20
};

struct StageInfo {
    StageId id;
    std::string_view key;      // stable id, e.g. "scores.softmax"
    int number;                // the walkthrough's stage number
    std::string_view title;
    std::string_view chapter;  // chapters/ file that explains it, e.g. "10-forward-pass.md"
};

const StageInfo& stageInfo(StageId id);
const std::vector<StageInfo>& stageCatalog();
// nullptr when no stage has that key.
const StageInfo* findStage(std::string_view key);

}  // namespace llama
