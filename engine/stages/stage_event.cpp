#include "stages/stage_event.h"

#include <fmt/args.h>
#include <fmt/format.h>

#include <stdexcept>

namespace llama {

namespace {

std::string formatWording(const StageInfo& info, std::string_view wording, const std::vector<StageField>& fields) {
    fmt::dynamic_format_arg_store<fmt::format_context> args;
    for (const StageField& f : fields) {
        if (const auto* t = std::get_if<const Tensor*>(&f.value)) args.push_back(fmt::arg(f.name, *t ? (*t)->shapeStr() : "shape([])"));
        else if (const auto* n = std::get_if<int64_t>(&f.value)) args.push_back(fmt::arg(f.name, *n));
        else args.push_back(fmt::arg(f.name, std::get<std::string>(f.value)));
    }
    try {
        return fmt::vformat(wording, args);
    } catch (const fmt::format_error& e) {
        throw std::logic_error(fmt::format("stage {}: its mark lacks a field its wording needs ({})", info.key, e.what()));
    }
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

const TensorStats& StageEvent::stats(size_t i) const {
    statsCache.resize(tensors.size());
    std::optional<TensorStats>& s = statsCache.at(i);
    if (!s && known) s = known->find(*tensors[i].tensor);
    if (!s) s = computeStats(*tensors[i].tensor);
    return *s;
}

StageEvent makeStageEvent(StageId stage, int layer, int step, int startPos, bool skipped, std::vector<StageField> fields) {
    const StageInfo& info = stageInfo(stage);
    fields.emplace_back("layer", layer);
    fields.emplace_back("layerNumber", layer + 1);
    fields.emplace_back("step", step);
    fields.emplace_back("startPos", startPos);
    StageEvent e{stage, layer, step, startPos, skipped, std::move(fields), {}, {}};
    e.message = formatWording(info, skipped ? info.skipped : info.wording, e.fields);
    // The recorded tensors, in the catalog's order; an absent one (no mask) is left out.
    for (std::string_view rest = info.records; !rest.empty();) {
        size_t comma = rest.find(',');
        std::string_view name = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (const Tensor* t = recordedTensor(info, e.fields, name)) e.tensors.push_back({std::string(name), t});
    }
    return e;
}

}  // namespace llama
