#pragma once
// Symbolic tensor shapes as chapters/ writes them, e.g. "[N_Heads, seqLen, startPos+seqLen]",
// evaluated against a model's arguments and a position in the run. A tiny evaluator of its own
// (integers, + - * / and parentheses) so a typo in a chapter fails with a message that points
// at the typo rather than at a library's grammar.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "model/model_args.h"
#include "tensor/tensor.h"

namespace llama {

using ShapeSymbols = std::map<std::string, int64_t, std::less<>>;

// The symbols a chapter may use: the model's sizes under the walkthrough's names, plus where
// the forward pass is (seqLen tokens at startPos, after a prompt of promptLen tokens), and nKV,
// the KV rows attention reads (startPos+seqLen; a batch of sequences reads its cells' n_kv).
ShapeSymbols shapeSymbols(const ModelArgs& args, int64_t seqLen, int64_t startPos, int64_t promptLen, int64_t maxSeqLen);

// Throws std::invalid_argument naming the formula, the column and what was wrong
// (unknown symbol, unexpected character, unbalanced parenthesis, division by zero).
int64_t evaluateFormula(std::string_view formula, const ShapeSymbols& symbols);
// "[a, b, c]" -> {a, b, c}; "[]" is a scalar's shape.
Shape evaluateShape(std::string_view shape, const ShapeSymbols& symbols);
// "left OP right" with OP one of < <= > >= == !=.
bool evaluateCondition(std::string_view condition, const ShapeSymbols& symbols);

}  // namespace llama
