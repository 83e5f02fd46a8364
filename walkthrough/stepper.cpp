#include "stepper.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <istream>
#include <ostream>

#include "stages/numbering.h"
#include "tensor/tensor_stats.h"
#include "tensor_text.h"

namespace llama::cli {

namespace {
// The tensors whose rows are this pass's queries and whose columns are all positions so far.
bool isAttentionTensor(const std::string& name) { return name == "xqMatMulKeys" || name == "scores" || name == "mask"; }

bool headsFirst(StageId stage) {
    return stage == StageId::Transposes || stage == StageId::ScoresMatMul || stage == StageId::ScoresScale ||
           stage == StageId::ScoresMask || stage == StageId::ScoresSoftmax || stage == StageId::AttentionValues;
}

// Rows of a batch mark as `seq:pos` ("1:4", "0,1,2:0"; "free" for a cell without a position):
// positions I32 [n or more], seqs I32 [n, widest set] padded with -1 (model/kv_cells.h).
std::vector<std::string> seqPosLabels(const Tensor* positions, const Tensor* seqs) {
    std::vector<std::string> out;
    if (!positions || !seqs || !positions->hasData() || !seqs->hasData() || seqs->rank() != 2) return out;
    for (int64_t i = 0; i < seqs->dim(0) && i < positions->numel(); ++i) {
        std::string label;
        for (int64_t j = 0; j < seqs->dim(1); ++j)
            if (const int s = int(seqs->floatAt(i * seqs->dim(1) + j)); s >= 0) label += (label.empty() ? "" : ",") + std::to_string(s);
        const int pos = int(positions->floatAt(i));
        out.push_back(pos < 0 ? "free" : label + ":" + std::to_string(pos));
    }
    return out;
}

std::string tensorLine(const StageEvent& e, size_t i) {
    const Tensor& t = *e.tensors[i].tensor;
    std::string head = fmt::format("   {:<14} {:<16} {:<9}", e.tensors[i].name, shapeToString(t.shape()), dtypeName(t.dtype()));
    if (!t.hasData()) return head + " (shapes only: dry run)\n";
    return head + " " + formatStats(e.stats(i)) + "\n";
}
}  // namespace

void PositionTokens::onStage(const StageEvent& e) {
    for (const auto& f : e.fields) {
        if (e.stage == StageId::TokensTensor && std::string_view(f.name) == "tokens") {
            const Tensor& t = *std::get<const Tensor*>(f.value);
            ids_.clear();
            for (int64_t i = 0; i < t.numel(); ++i) ids_.push_back(int32_t(t.floatAt(i)));
        } else if (e.stage == StageId::Sample && !e.skipped && std::string_view(f.name) == "token") {
            ids_.push_back(int32_t(std::get<int64_t>(f.value)));
        }
    }
    if (e.stage == StageId::UBatchTokens) ubatchRows_ = seqPosLabels(e.tensorField("positions"), e.tensorField("seqIds"));
    if (e.stage == StageId::KvSlot) cellLabels_ = seqPosLabels(e.tensorField("cellPos"), e.tensorField("cellSeqIds"));
}

std::vector<std::string> PositionTokens::labels(int64_t begin, int64_t end) const {
    std::vector<std::string> out;
    for (int64_t pos = begin; pos < end; ++pos) {
        if (pos >= int64_t(ids_.size())) {
            out.push_back("?");
            continue;
        }
        std::string piece = tokenizer_.pieceForDisplay(ids_[pos]);
        // Long pieces (<|begin_of_text|>) would widen every column: cut at 10 characters.
        size_t chars = 0, cut = 0;
        while (cut < piece.size() && chars < 10) chars += (static_cast<unsigned char>(piece[cut++]) & 0xC0) != 0x80;
        while (cut < piece.size() && (static_cast<unsigned char>(piece[cut]) & 0xC0) == 0x80) ++cut;
        out.push_back("\"" + piece.substr(0, cut) + (cut < piece.size() ? "…" : "") + "\"");
    }
    return out;
}

std::string describeStage(const StageEvent& e, int nLayers) {
    const StageInfo& s = e.info();
    std::string where = layerLabel(e.layer, nLayers);
    where += e.step == 0 ? ", prefill (step 0)" : fmt::format(", decode step {}", e.step);
    std::string out = fmt::format("-- Stage {}: {} [{}] chapters/{}\n   {}, startPos {}\n", s.number, s.title, s.key, s.chapter, where, e.startPos);
    size_t begin = 0;
    while (begin < e.message.size()) {
        size_t end = e.message.find('\n', begin);
        if (end == std::string::npos) end = e.message.size();
        out += "   | " + e.message.substr(begin, end - begin) + "\n";
        begin = end + 1;
    }
    for (size_t i = 0; i < e.tensors.size(); ++i) out += tensorLine(e, i);
    return out;
}

TerminalStepper::TerminalStepper(StepController& controller, std::istream& in, std::ostream& out, int nLayers, bool echo,
                                 const PositionTokens* tokens)
    : controller_(controller), in_(in), out_(out), nLayers_(nLayers), echo_(echo), tokens_(tokens) {
    controller_.setPauseListener([this](const StageEvent& e) { onPause(e); });
}

void TerminalStepper::onPause(const StageEvent& event) {
    out_ << "\n" << describeStage(event, nLayers_);
    const auto bps = controller_.breakpoints();
    if (std::any_of(bps.begin(), bps.end(), [&](const Breakpoint& b) { return b.matches(event); })) out_ << "   (breakpoint)\n";
    for (;;) {
        out_ << "step> " << std::flush;
        std::string line;
        errno = 0;  // a read that ends at the input's end sets none
        if (!std::getline(in_, line)) {
            // Ctrl-C wakes the read (interrupt.cpp installs its handler without SA_RESTART) and
            // has asked the session to stop: say so, and stop here.
            if (errno == EINTR) {
                out_ << "\n(interrupted: stopping the generation)\n" << std::flush;
                controller_.stop();
                return;
            }
            // Piped scripts end: let the run finish rather than hang or stop half-way.
            out_ << "\n(end of input: running to the end)\n" << std::flush;
            controller_.clearBreakpoints();
            controller_.continueRun();
            return;
        }
        if (echo_) out_ << line << "\n";
        if (apply(parseStepCommand(line), event)) return;
    }
}

bool TerminalStepper::apply(const StepCommand& c, const StageEvent& event) {
    using K = StepCommand::Kind;
    switch (c.kind) {
        case K::NextStage: controller_.step(); return true;
        case K::NextLayer: controller_.nextLayer(); return true;
        case K::NextToken: controller_.nextToken(); return true;
        case K::Continue: controller_.continueRun(); return true;
        case K::Quit:
            out_ << "stopping the generation\n" << std::flush;
            controller_.stop();
            return true;
        case K::Break:
            if (c.breakpoints.front().layer && *c.breakpoints.front().layer >= nLayers_) {
                out_ << fmt::format("{} does not exist: this model has layers 1 to {}\n", layerLabel(*c.breakpoints.front().layer), nLayers_);
                return false;
            }
            for (const auto& b : c.breakpoints) {
                controller_.addBreakpoint(b);
                const StageInfo& s = stageInfo(b.stage);
                out_ << fmt::format("breakpoint: stage {} {}{}\n", s.number, s.key, b.layer ? " in " + layerLabel(*b.layer) : "");
            }
            return false;
        case K::Print: {
            auto it = std::find_if(event.tensors.begin(), event.tensors.end(), [&](const StageTensor& t) { return t.name == c.tensor; });
            if (it != event.tensors.end()) {
                SliceLabels labels;
                const Tensor& t = *it->tensor;
                if (tokens_ && isAttentionTensor(it->name) && t.rank() >= 2 && !tokens_->batchRowLabels().empty() &&
                    int64_t(tokens_->batchRowLabels().size()) == t.dim(-2)) {
                    labels.rows = tokens_->batchRowLabels();  // a batch: rows are its tokens, columns the cells
                    if (int64_t(tokens_->batchCellLabels().size()) == t.dim(-1)) labels.cols = tokens_->batchCellLabels();
                } else if (tokens_ && isAttentionTensor(it->name) && t.rank() >= 2) {
                    labels.rows = tokens_->labels(event.startPos, event.startPos + t.dim(-2));
                    labels.cols = tokens_->labels(0, t.dim(-1));
                }
                // Stages 12-14 hold their 3-D tensors heads first; a head is counted from 1 there, as
                // --ablate-head, the viewer and the chapters count heads (head 1 when none is given).
                const bool head = t.rank() == 3 && headsFirst(event.stage);
                const int64_t index = head && !c.indexGiven ? 1 : c.index;
                out_ << (c.row ? formatTensorRow(it->name, t, index, *c.row, head) : formatTensorSlice(it->name, t, index, 8, 8, labels, head));
                return false;
            }
            std::string names;
            for (const auto& t : event.tensors) names += (names.empty() ? "" : ", ") + t.name;
            out_ << (names.empty() ? fmt::format("no tensor '{}': this stage has none\n", c.tensor)
                                   : fmt::format("no tensor '{}' at this stage; it has: {}\n", c.tensor, names));
            return false;
        }
        case K::Lens: out_ << (lens_ ? lens_(int(c.index)) : "the logit lens is not available in this run\n"); return false;
        case K::Top: {
            auto it = std::find_if(event.tensors.begin(), event.tensors.end(), [](const StageTensor& t) { return t.name == "logits"; });
            if (it == event.tensors.end() || !tokens_)
                out_ << "no logits at this stage: top works at stage 19 (logits) and 20 (sampling); b logits, then c\n";
            else
                out_ << formatTopLogits(*it->tensor, tokens_->tokenizer(), int(c.index));
            return false;
        }
        case K::Help: out_ << kStepHelp; return false;
        case K::Invalid: out_ << c.error << "\n"; return false;
    }
    return false;
}

}  // namespace llama::cli
