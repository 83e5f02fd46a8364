#pragma once
// `llama-walkthrough --step`: holds the run after each stage, shows what the stage produced and
// reads one command line. Plain lines in and out (no raw terminal mode), so it works over ssh,
// in tmux and with a script piped in; the end of the input lets the run finish.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "stages/step_controller.h"
#include "step_command.h"
#include "tokenizer/tokenizer.h"

namespace llama::cli {

// The token at every position of the sequence so far: the prompt (stage 2's tensor), then each
// sampled token (stage 20). Added as an observer before the step controller, so that a paused
// stage can label attention rows (queries) and columns (keys) with token text.
class PositionTokens : public StageObserver {
public:
    explicit PositionTokens(const Tokenizer& tokenizer) : tokenizer_(tokenizer) {}
    void onStage(const StageEvent& event) override;
    StageReads reads(StageId stage, int) const override {
        return stage == StageId::TokensTensor || stage == StageId::UBatchTokens || stage == StageId::KvSlot ? StageReads::Values
                                                                                                             : StageReads::Shapes;
    }
    const Tokenizer& tokenizer() const { return tokenizer_; }
    // Positions [begin, end) as `"piece"`; "?" for a position not known (yet).
    std::vector<std::string> labels(int64_t begin, int64_t end) const;
    // A batch of sequences (once a ubatch was seen): an attention tensor's rows are the ubatch's
    // tokens, `seq:pos` ("1:4", "0,1,2:0" for a token of several sequences), its columns the KV
    // cells [0, n_kv) as find_slot left them, `seq:pos` too ("free" for a free one). Empty for a
    // run of one sequence.
    const std::vector<std::string>& batchRowLabels() const { return ubatchRows_; }
    const std::vector<std::string>& batchCellLabels() const { return cellLabels_; }

private:
    const Tokenizer& tokenizer_;
    std::vector<int32_t> ids_;
    std::vector<std::string> ubatchRows_, cellLabels_;
};

// The pause screen: stage number, title and chapter, where in the run, each tensor summarised.
std::string describeStage(const StageEvent& event, int nLayers);


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
