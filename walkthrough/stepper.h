#pragma once
// `llama-walkthrough --step`: holds the run after each stage, shows what the stage produced and
// reads one command line. Plain lines in and out (no raw terminal mode), so it works over ssh,
// in tmux and with a script piped in; the end of the input lets the run finish.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stages/step_controller.h"
#include "tokenizer/tokenizer.h"

namespace llama::cli {

struct StepCommand {
    enum class Kind { NextStage, NextLayer, NextToken, Continue, Break, Print, Lens, Top, Help, Quit, Invalid };
    Kind kind = Kind::Invalid;
    std::vector<Breakpoint> breakpoints;  // Break: one per stage it names (a number names several)
    std::string tensor;                   // Print: a tensor of the current stage
    int64_t index = 0;                    // Print: which slice of a 3-D tensor (a head from 1); Lens, Top: K
    bool indexGiven = false;              // Print: INDEX was typed
    std::optional<int64_t> row;           // Print: one row in full, every column (`p NAME [INDEX] row R`)
    std::string error;                    // Invalid: what was wrong, for the user
};

// One typed line: "" next stage, "l" next layer, "t" next token, "c" continue, "b STAGE [LAYER]",
// "p NAME [INDEX] [row R]", "top [K]", "h", "q". STAGE is a key (scores_softmax) or a number (13 = all of its stages);
// LAYER is 1-based, as the log prints layers.
StepCommand parseStepCommand(std::string_view line);

// A readable 2-D slice: a 1-D tensor as one row, a 2-D one whole, a 3-D one at [index] (with
// `head`, at head `index` counted from 1, the first dimension being the heads). Columns
// are aligned; past maxRows/maxCols the middle rows/columns are elided with "…". Row and column
// labels, when given (one per row/column), are shown beside the indices (token text).
struct SliceLabels {
    std::vector<std::string> rows, cols;
};
std::string formatTensorSlice(const std::string& name, const Tensor& t, int64_t index = 0, int maxRows = 8, int maxCols = 8,
                              const SliceLabels& labels = {}, bool head = false);

// Row `row` of the same slice with every column, 8 values a line after the first one's column
// index, to 6 significant digits: the numbers a student recomputes (a whole RMSNorm row).
std::string formatTensorRow(const std::string& name, const Tensor& t, int64_t index, int64_t row, bool head = false);

// The k largest logits of the last row of `logits` ([VocabSize] or [seqLen, VocabSize]), with
// their probabilities (softmax at temperature 1) and token pieces.
std::string formatTopLogits(const Tensor& logits, const Tokenizer& tokenizer, int k);

// The token at every position of the sequence so far: the prompt (stage 2's tensor), then each
// sampled token (stage 20). Added as an observer before the step controller, so that a paused
// stage can label attention rows (queries) and columns (keys) with token text.
class PositionTokens : public StageObserver {
public:
    explicit PositionTokens(const Tokenizer& tokenizer) : tokenizer_(tokenizer) {}
    void onStage(const StageEvent& event) override;
    StageReads reads(StageId stage, int) const override {
        return stage == StageId::TokensTensor ? StageReads::Values : StageReads::Shapes;
    }
    const Tokenizer& tokenizer() const { return tokenizer_; }
    // Positions [begin, end) as `"piece"`; "?" for a position not known (yet).
    std::vector<std::string> labels(int64_t begin, int64_t end) const;

private:
    const Tokenizer& tokenizer_;
    std::vector<int32_t> ids_;
};

// The pause screen: stage number, title and chapter, where in the run, each tensor summarised.
std::string describeStage(const StageEvent& event, int nLayers);

extern const char* const kStepHelp;

class TerminalStepper {
public:
    // Becomes `controller`'s pause listener; prompts on `out`, reads commands from `in`. With
    // `echo` each command is repeated after the prompt, so a transcript of piped input reads well.
    // `tokens`, when given, labels attention scores with token text and serves `top`.
    TerminalStepper(StepController& controller, std::istream& in, std::ostream& out, int nLayers, bool echo,
                    const PositionTokens* tokens = nullptr);
    // What `lens [K]` prints (lens_view.h); without it the command says the lens is unavailable.
    void setLens(std::function<std::string(int k)> describe) { lens_ = std::move(describe); }

private:
    void onPause(const StageEvent& event);
    // True when the command released the engine.
    bool apply(const StepCommand& command, const StageEvent& event);

    StepController& controller_;
    std::istream& in_;
    std::ostream& out_;
    int nLayers_;
    bool echo_;
    std::function<std::string(int)> lens_;
    const PositionTokens* tokens_;
};

}  // namespace llama::cli
