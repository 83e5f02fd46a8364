#include "stepper.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <istream>
#include <ostream>

#include "generate/sampler.h"
#include "ml/ops.h"
#include "stages/numbering.h"
#include "trace/tensor_stats.h"

namespace llama::cli {

const char* const kStepHelp =
    "Commands (one per line):\n"
    "  Enter           next stage\n"
    "  l               next layer\n"
    "  t               next token: its logits (stage 19), where top and lens have it\n"
    "  c               continue to the next breakpoint (or the end)\n"
    "  b STAGE [LAYER] break at a stage: a key (scores_softmax) or a number (13 = all of its stages),\n"
    "                  optionally only in LAYER (1-based, as the log counts)\n"
    "  p NAME [INDEX]  print a tensor of this stage (a 3-D tensor at [INDEX], default 0; at stages 12-14,\n"
    "                  whose tensors are heads first, INDEX is the head, from 1 as --ablate-head counts);\n"
    "                  attention scores and the mask are labelled with the tokens\n"
    "  p NAME [INDEX] row R   row R of it in full, every column (p x row 3; a 1-D tensor is row 0)\n"
    "  top [K]         the K most likely next tokens (default 10), at the logits and sampling stages\n"
    "  lens [K]        logit lens: the top token each layer so far would predict (K: the last position's top K)\n"
    "  h               this help\n"
    "  q               quit: end the generation here\n"
    "End of input continues to the end.\n";

namespace {
std::vector<std::string_view> splitWords(std::string_view s) {
    std::vector<std::string_view> words;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        size_t start = i;
        while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i > start) words.push_back(s.substr(start, i - start));
    }
    return words;
}

std::optional<int64_t> parseInt(std::string_view s) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

StepCommand invalid(std::string error) {
    StepCommand c;
    c.error = std::move(error);
    return c;
}

StepCommand parseBreak(const std::vector<std::string_view>& w) {
    if (w.size() < 2 || w.size() > 3) return invalid("usage: b STAGE [LAYER], e.g. b scores_softmax 3 or b 13");
    std::vector<const StageInfo*> stages;
    if (auto number = parseInt(w[1])) {
        for (const auto& s : stageCatalog())
            if (s.number == *number) stages.push_back(&s);
        if (stages.empty()) return invalid(fmt::format("no stage has number {} (they are numbered 1-20)", *number));
    } else if (const StageInfo* s = findStage(w[1])) {
        stages.push_back(s);
    } else {
        return invalid(fmt::format("unknown stage '{}': give a key such as scores_softmax, or a number 1-20", w[1]));
    }
    std::optional<int> layer;
    if (w.size() == 3) {
        const auto index = indexFromNumber(w[2]);
        if (!index) return invalid(fmt::format("layer '{}' is not a layer number (1, 2, ...)", w[2]));
        if (!std::all_of(stages.begin(), stages.end(), [](auto* s) { return s->inBlock; }))
            return invalid(fmt::format("stage {} is outside the transformer blocks: it has no layer", w[1]));
        layer = *index;
    }
    StepCommand c;
    c.kind = StepCommand::Kind::Break;
    for (auto* s : stages) c.breakpoints.push_back({s->id, layer, std::nullopt});
    return c;
}

StepCommand parsePrint(std::vector<std::string_view> w) {
    const char* usage = "usage: p NAME [INDEX] [row R], e.g. p xq, p scores 2 or p x row 3";
    StepCommand c;
    c.kind = StepCommand::Kind::Print;
    if (w.size() >= 4 && w[w.size() - 2] == "row") {
        auto r = parseInt(w.back());
        if (!r || *r < 0) return invalid(fmt::format("row '{}' is not a number >= 0", w.back()));
        c.row = *r;
        w.resize(w.size() - 2);
    }
    if (w.size() < 2 || w.size() > 3) return invalid(usage);
    c.tensor = std::string(w[1]);
    if (w.size() == 3) {
        auto n = parseInt(w[2]);
        if (!n || *n < 0) return invalid(fmt::format("index '{}' is not a number >= 0", w[2]));
        c.index = *n;
        c.indexGiven = true;
    }
    return c;
}

StepCommand parseLens(const std::vector<std::string_view>& w) {
    StepCommand c;
    c.kind = StepCommand::Kind::Lens;
    if (w.size() > 2) return invalid("usage: lens [K], e.g. lens or lens 5");
    if (w.size() == 2) {
        auto n = parseInt(w[1]);
        if (!n || *n < 1 || *n > 100) return invalid(fmt::format("K '{}' is not a number from 1 to 100", w[1]));
        c.index = *n;
    }
    return c;
}

// Width on screen: UTF-8 continuation bytes take no column ("…" is one).
size_t displayWidth(const std::string& s) {
    return size_t(std::count_if(s.begin(), s.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
}

std::string padLeft(const std::string& s, size_t width) { return std::string(width - std::min(width, displayWidth(s)), ' ') + s; }

// Indices to show out of n, -1 where the elided middle goes.
std::vector<int64_t> pickIndices(int64_t n, int max) {
    std::vector<int64_t> out;
    if (n <= max) {
        for (int64_t i = 0; i < n; ++i) out.push_back(i);
        return out;
    }
    for (int64_t i = 0; i < (max + 1) / 2; ++i) out.push_back(i);
    out.push_back(-1);
    for (int64_t i = n - max / 2; i < n; ++i) out.push_back(i);
    return out;
}

StepCommand parseTop(const std::vector<std::string_view>& w) {
    StepCommand c;
    c.kind = StepCommand::Kind::Top;
    c.index = 10;
    if (w.size() > 2) return invalid("usage: top [K], e.g. top 5");
    if (w.size() == 2) {
        auto n = parseInt(w[1]);
        if (!n || *n < 1 || *n > 1000) return invalid(fmt::format("K '{}' is not a number from 1 to 1000", w[1]));
        c.index = *n;
    }
    return c;
}

// The tensors whose rows are this pass's queries and whose columns are all positions so far.
bool isAttentionTensor(const std::string& name) { return name == "xqMatMulKeys" || name == "scores" || name == "mask"; }

bool headsFirst(StageId stage) {
    return stage == StageId::Transposes || stage == StageId::ScoresMatMul || stage == StageId::ScoresScale ||
           stage == StageId::ScoresMask || stage == StageId::ScoresSoftmax || stage == StageId::AttentionValues;
}

std::string tensorLine(const StageEvent& e, size_t i) {
    const Tensor& t = *e.tensors[i].tensor;
    std::string head = fmt::format("   {:<14} {:<16} {:<9}", e.tensors[i].name, shapeToString(t.shape()), dtypeName(t.dtype()));
    if (!t.hasData()) return head + " (shapes only: dry run)\n";
    return head + " " + formatStats(e.stats(i)) + "\n";
}
}  // namespace

StepCommand parseStepCommand(std::string_view line) {
    auto w = splitWords(line);
    StepCommand c;
    using K = StepCommand::Kind;
    if (w.empty()) {
        c.kind = K::NextStage;
        return c;
    }
    if (w[0] == "b") return parseBreak(w);
    if (w[0] == "p") return parsePrint(w);
    if (w[0] == "lens") return parseLens(w);
    if (w[0] == "top") return parseTop(w);
    if (w.size() == 1) {
        if (w[0] == "l") c.kind = K::NextLayer;
        else if (w[0] == "t") c.kind = K::NextToken;
        else if (w[0] == "c") c.kind = K::Continue;
        else if (w[0] == "h") c.kind = K::Help;
        else if (w[0] == "q") c.kind = K::Quit;
        if (c.kind != K::Invalid) return c;
    }
    return invalid(fmt::format("unknown command '{}' (h for help)", std::string(w[0])));
}

namespace {
// The 2-D slice `p` shows of a 1-D, 2-D or 3-D tensor: its rows, columns, first element and title;
// or, in `error`, why there is none.
struct SliceView {
    int64_t rows = 1, cols = 0, base = 0;
    std::string title, error;
};

SliceView sliceOf(const std::string& name, const Tensor& t, int64_t index, bool head) {
    SliceView v;
    const std::string what = fmt::format("{} {} {}", name, shapeToString(t.shape()), dtypeName(t.dtype()));
    if (!t.hasData()) v.error = what + ": no values (dry run: shapes only)\n";
    else if (t.rank() < 1 || t.rank() > 3) v.error = what + ": only 1-D, 2-D and 3-D tensors can be printed\n";
    else if (head && t.rank() == 3 && (index < 1 || index > t.dim(0)))
        v.error = fmt::format("{}: head {} is out of range (heads are counted from 1: 1-{})\n", what, index, t.dim(0));
    else if (!head && t.rank() == 3 && index >= t.dim(0)) v.error = fmt::format("{}: index {} is out of range (0-{})\n", what, index, t.dim(0) - 1);
    else if (t.rank() < 3 && index != 0) v.error = what + ": an index applies only to 3-D tensors\n";
    if (!v.error.empty()) return v;
    v.cols = t.dim(-1);
    v.title = what;
    if (t.rank() == 2) v.rows = t.dim(0);
    if (t.rank() == 3) {
        v.rows = t.dim(1);
        v.base = (head ? index - 1 : index) * v.rows * v.cols;
        v.title += head ? ", " + headLabel(int(index - 1)) : fmt::format(", [{}]", index);
    }
    if (t.dtype() == DType::Complex64) v.title += " (real parts)";
    return v;
}
}  // namespace

std::string formatTensorRow(const std::string& name, const Tensor& t, int64_t index, int64_t row, bool head) {
    const SliceView v = sliceOf(name, t, index, head);
    if (!v.error.empty()) return v.error;
    if (row >= v.rows) return fmt::format("{}: row {} is out of range (0-{})\n", v.title, row, v.rows - 1);
    std::string out = fmt::format("{}, row {}: all {} columns\n", v.title, row, v.cols);
    for (int64_t c = 0; c < v.cols; ++c) {
        if (c % 8 == 0) out += fmt::format("{:>5}:", c);
        const float x = t.floatAt(v.base + row * v.cols + c);
        out += t.dtype() == DType::I32 ? fmt::format(" {:>12}", int64_t(x)) : fmt::format(" {:>12.6g}", x);
        if (c % 8 == 7 || c + 1 == v.cols) out += "\n";
    }
    return out;
}

std::string formatTensorSlice(const std::string& name, const Tensor& t, int64_t index, int maxRows, int maxCols, const SliceLabels& labels,
                              bool head) {
    const SliceView v = sliceOf(name, t, index, head);
    if (!v.error.empty()) return v.error;
    const int64_t rows = v.rows, cols = v.cols, base = v.base;
    const std::string& title = v.title;

    const auto rowIdx = pickIndices(rows, maxRows), colIdx = pickIndices(cols, maxCols);
    // table[0] is the column header; column 0 the row labels.
    std::vector<std::vector<std::string>> table(rowIdx.size() + 1, std::vector<std::string>(colIdx.size() + 1));
    const bool labelled = labels.rows.size() == size_t(rows) && labels.cols.size() == size_t(cols);
    for (size_t c = 0; c < colIdx.size(); ++c)
        table[0][c + 1] = colIdx[c] < 0 ? "…" : std::to_string(colIdx[c]) + (labelled ? " " + labels.cols[colIdx[c]] : "");
    for (size_t r = 0; r < rowIdx.size(); ++r) {
        table[r + 1][0] = rowIdx[r] < 0 ? "…" : fmt::format("[{}]", rowIdx[r]) + (labelled ? " " + labels.rows[rowIdx[r]] : "");
        for (size_t c = 0; c < colIdx.size(); ++c) {
            if (rowIdx[r] < 0 || colIdx[c] < 0) {
                table[r + 1][c + 1] = "…";
                continue;
            }
            float v = t.floatAt(base + rowIdx[r] * cols + colIdx[c]);
            table[r + 1][c + 1] = t.dtype() == DType::I32 ? std::to_string(int64_t(v)) : fmt::format("{:.4g}", v);
        }
    }
    std::vector<size_t> width(colIdx.size() + 1, 0);
    for (const auto& row : table)
        for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], displayWidth(row[c]));
    std::string out = title + "\n";
    for (const auto& row : table) {
        std::string line;
        for (size_t c = 0; c < row.size(); ++c) {
            // Token labels read better left-aligned; numbers right-aligned.
            if (c == 0 && labelled) line += row[c] + std::string(width[c] - displayWidth(row[c]), ' ');
            else line += (c ? "  " : "") + padLeft(row[c], width[c]);
        }
        out += line + "\n";
    }
    return out;
}

std::string formatTopLogits(const Tensor& logits, const Tokenizer& tokenizer, int k) {
    if (!logits.hasData()) return "no logits: a dry run computes shapes only\n";
    const int64_t vocab = logits.dim(-1), rows = logits.numel() / vocab;
    // The last row, as the sampler sees it; its probabilities at temperature 1.
    const Tensor row = ml::Reshape(ml::Slice(ml::Reshape(logits, {rows, vocab}), rows - 1, rows), {vocab});
    const auto top = Sampler(SamplingSettings{}).topTokens(row, k);
    std::string out = fmt::format("top {} of {} logits{}:\n  rank      id     logit    prob  piece\n", top.size(), vocab,
                                  logits.rank() == 2 ? " (the last position's row)" : "");
    for (size_t i = 0; i < top.size(); ++i)
        out += fmt::format("  {:>4}  {:>6}  {:>8.4f}  {:.4f}  \"{}\"\n", i + 1, top[i].id, top[i].logit, top[i].probability,
                           tokenizer.pieceForDisplay(top[i].id));
    return out;
}

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
        if (!std::getline(in_, line)) {
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
                if (tokens_ && isAttentionTensor(it->name) && t.rank() >= 2) {
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
