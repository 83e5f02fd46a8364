#include "stages/stage_event.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace llama {

namespace {

// A wording cut once into literal text and {field} references, so that writing an event's line
// appends pieces instead of parsing the wording and building fmt's named-argument store at each
// of the hundreds of marks a token makes.
struct WordingPiece {
    std::string literal;    // text before the field, "{{" and "}}" undoubled
    std::string_view field;  // empty for the trailing text
    std::string spec;       // "{:?}" for {piece:?}; empty for the plain form
};

std::vector<WordingPiece> parseWording(std::string_view wording) {
    std::vector<WordingPiece> pieces;
    std::string literal;
    for (size_t i = 0; i < wording.size(); ++i) {
        const char c = wording[i];
        if ((c == '{' || c == '}') && i + 1 < wording.size() && wording[i + 1] == c) {
            literal += c;
            ++i;
        } else if (c != '{') {
            literal += c;
        } else {  // the catalog's wordings are checked at compile time (stage_marks.h): the brace closes
            const size_t close = wording.find('}', i);
            const std::string_view inside = wording.substr(i + 1, close - i - 1);
            const size_t colon = inside.find(':');
            const std::string spec = colon == std::string_view::npos ? "" : "{" + std::string(inside.substr(colon)) + "}";
            pieces.push_back({std::move(literal), inside.substr(0, colon), spec});
            literal.clear();
            i = close;
        }
    }
    pieces.push_back({std::move(literal), {}, {}});
    return pieces;
}

const std::vector<WordingPiece>& parsedWording(const StageInfo& info, bool skipped) {
    static const std::vector<std::vector<WordingPiece>> parsed = [] {
        std::vector<std::vector<WordingPiece>> all;
        for (const StageInfo& s : stageCatalog()) {
            all.push_back(parseWording(s.wording));
            all.push_back(parseWording(s.skipped));
        }
        return all;
    }();
    return parsed[2 * static_cast<size_t>(info.id) + skipped];
}

void appendShape(std::string& out, const Tensor* t) {
    out += "shape([";
    if (t)
        for (size_t d = 0; d < t->rank(); ++d) {
            if (d) out += ' ';
            fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), t->dim(int(d)));
        }
    out += "])";
}

std::string formatWording(const StageInfo& info, bool skipped, const std::vector<StageField>& fields) {
    std::string out;
    out.reserve(160);
    for (const WordingPiece& piece : parsedWording(info, skipped)) {
        out += piece.literal;
        if (piece.field.empty()) continue;
        const StageField* field = nullptr;
        for (const StageField& f : fields)
            if (piece.field == f.name) {
                field = &f;
                break;
            }
        if (!field) throw std::logic_error(fmt::format("stage {}: its mark lacks the field '{}' its wording needs", info.key, piece.field));
        if (const auto* t = std::get_if<const Tensor*>(&field->value)) appendShape(out, *t);
        else if (const auto* n = std::get_if<int64_t>(&field->value)) fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), *n);
        else if (piece.spec.empty()) out += std::get<std::string>(field->value);
        else fmt::format_to(std::back_inserter(out), fmt::runtime(piece.spec), std::get<std::string>(field->value));
    }
    return out;
}

// nullptr for an absent optional tensor (no mask).
const Tensor* recordedTensor(const StageInfo& info, const std::vector<StageField>& fields, std::string_view name) {
    for (const StageField& f : fields)
        if (f.name == name)
            if (const auto* t = std::get_if<const Tensor*>(&f.value)) return *t;
    throw std::logic_error(fmt::format("stage {}: its mark lacks the tensor '{}' the catalog records", info.key, name));
}

}  // namespace

const Tensor* StageEvent::tensorField(std::string_view name) const {
    for (const StageField& f : fields)
        if (f.name == name)
            if (const auto* t = std::get_if<const Tensor*>(&f.value)) return *t;
    return nullptr;
}

std::optional<int64_t> StageEvent::numberField(std::string_view name) const {
    for (const StageField& f : fields)
        if (f.name == name)
            if (const auto* v = std::get_if<int64_t>(&f.value)) return *v;
    return std::nullopt;
}

const TensorStats& StageEvent::stats(size_t i) const {
    statsCache.resize(tensors.size());
    std::optional<TensorStats>& s = statsCache.at(i);
    if (!s && known) s = known->find(*tensors[i].tensor);
    if (!s) s = computeStats(*tensors[i].tensor);
    return *s;
}

StageEvent makeStageEvent(StageId stage, int layer, int step, int startPos, bool skipped, std::vector<StageField> fields, bool wording) {
    const StageInfo& info = stageInfo(stage);
    fields.emplace_back("layer", layer);
    fields.emplace_back("layerNumber", layer + 1);
    fields.emplace_back("step", step);
    fields.emplace_back("startPos", startPos);
    StageEvent e{stage, layer, step, startPos, skipped, std::move(fields), {}, {}};
    if (wording) e.message = formatWording(info, skipped, e.fields);
    // The recorded tensors, in the catalog's order; an absent one (no mask) is left out.
    if (!info.records.empty()) e.tensors.reserve(size_t(std::count(info.records.begin(), info.records.end(), ',')) + 1);
    for (std::string_view rest = info.records; !rest.empty();) {
        size_t comma = rest.find(',');
        std::string_view name = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (const Tensor* t = recordedTensor(info, e.fields, name)) e.tensors.push_back({std::string(name), t});
    }
    return e;
}

}  // namespace llama
