#pragma once
// The {norms} text of a backward stage's log line: each named gradient's L2 norm,
// "|dX| 0.0123, |dAttnWo| 0.456" (or "|dAttnWo| frozen" in a LoRA run). Made only when someone observes the mark (marks::LazyText).
#include <string>

#include <fmt/format.h>

#include "tensor/tensor.h"

namespace llama {

// The L2 norm of an F32 tensor's values, summed in index order in F64 (the same bits everywhere).
double l2Norm(const Tensor& t);

// normsOf("dX", dX, "dAttnWo", dAttnWo): a function making the text, for a mark's TEXT field.
template <class... Named> auto normsOf(const Named&... named) {
    return [&named...] {
        std::string text;
        auto add = [&text](const char* name, const Tensor& t) {
            // A frozen weight (a LoRA run's own matrices) has no gradient to measure.
            const std::string norm = t.hasData() ? fmt::format("{:.4g}", l2Norm(t)) : "frozen";
            text += fmt::format("{}|{}| {}", text.empty() ? "" : ", ", name, norm);
        };
        [&]<size_t... I>(std::index_sequence<I...>) {
            const auto all = std::forward_as_tuple(named...);
            (add(std::get<2 * I>(all), std::get<2 * I + 1>(all)), ...);
        }(std::make_index_sequence<sizeof...(Named) / 2>{});
        return text;
    };
}

}  // namespace llama
