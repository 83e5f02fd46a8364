#include "step_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "stages/numbering.h"
#include "stages/stage_catalog.h"

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

}  // namespace llama::cli
