#include "doccheck/shape_formula.h"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>

namespace llama {

ShapeSymbols shapeSymbols(const ModelArgs& a, int64_t seqLen, int64_t startPos, int64_t promptLen, int64_t maxSeqLen) {
    return {{"seqLen", seqLen},          {"startPos", startPos},         {"promptLen", promptLen},
            {"MaxSeqLen", maxSeqLen},    {"Dim", a.dim},                 {"N_Heads", a.n_heads},
            {"N_KVHeads", a.n_kv_heads}, {"HeadDim", a.headDim()},       {"N_Rep", a.nRep()},
            {"FFNHiddenDim", a.ffnHiddenDim()}, {"VocabSize", a.vocab_size}, {"N_Layers", a.n_layers},
            // The KV rows attention reads: startPos+seqLen for one sequence (a batch's n_kv, chapter 16).
            {"nKV", startPos + seqLen}};
}

namespace {

// Recursive descent: expr = term {(+|-) term}; term = factor {(*|/) factor};
// factor = integer | symbol | '(' expr ')' | '-' factor.
class Parser {
public:
    Parser(std::string_view text, const ShapeSymbols& symbols) : text_(text), symbols_(symbols) {}

    int64_t parseAll() {
        int64_t v = expr();
        skipSpace();
        if (pos_ < text_.size()) fail(fmt::format("unexpected '{}'", text_[pos_]));
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::invalid_argument(fmt::format("in formula '{}' at column {}: {}", text_, pos_ + 1, what));
    }
    void skipSpace() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    bool accept(char c) {
        skipSpace();
        if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
        return false;
    }
    int64_t expr() {
        int64_t v = term();
        while (true) {
            if (accept('+')) v += term();
            else if (accept('-')) v -= term();
            else return v;
        }
    }
    int64_t term() {
        int64_t v = factor();
        while (true) {
            if (accept('*')) {
                v *= factor();
            } else if (accept('/')) {
                size_t at = pos_;
                int64_t d = factor();
                if (d == 0) {
                    pos_ = at;
                    fail("division by zero");
                }
                v /= d;
            } else {
                return v;
            }
        }
    }
    int64_t factor() {
        skipSpace();
        if (pos_ >= text_.size()) fail("expected a number, a symbol or '(' but the formula ended");
        char c = text_[pos_];
        if (accept('(')) {
            int64_t v = expr();
            if (!accept(')')) fail("expected ')'");
            return v;
        }
        if (accept('-')) return -factor();
        if (std::isdigit(static_cast<unsigned char>(c))) {
            int64_t v = 0;
            while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) v = v * 10 + (text_[pos_++] - '0');
            return v;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t begin = pos_;
            while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
            std::string_view name = text_.substr(begin, pos_ - begin);
            auto it = symbols_.find(name);
            if (it == symbols_.end()) {
                std::string known;
                for (const auto& [k, v] : symbols_) known += (known.empty() ? "" : ", ") + k;
                pos_ = begin;
                fail(fmt::format("unknown symbol '{}' (known symbols: {})", name, known));
            }
            return it->second;
        }
        fail(fmt::format("expected a number, a symbol or '(' but found '{}'", c));
    }

    std::string_view text_;
    const ShapeSymbols& symbols_;
    size_t pos_ = 0;
};

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

}  // namespace

int64_t evaluateFormula(std::string_view formula, const ShapeSymbols& symbols) {
    if (trim(formula).empty()) throw std::invalid_argument("empty formula");
    return Parser(formula, symbols).parseAll();
}

Shape evaluateShape(std::string_view shape, const ShapeSymbols& symbols) {
    std::string_view s = trim(shape);
    if (s.size() < 2 || s.front() != '[' || s.back() != ']')
        throw std::invalid_argument(fmt::format("shape '{}' must be written as [dim, dim, ...]", shape));
    s = trim(s.substr(1, s.size() - 2));
    Shape out;
    if (s.empty()) return out;
    // Split on the commas outside parentheses.
    int depth = 0;
    size_t begin = 0;
    for (size_t i = 0; i <= s.size(); ++i) {
        if (i < s.size() && s[i] == '(') ++depth;
        if (i < s.size() && s[i] == ')') --depth;
        if (i == s.size() || (s[i] == ',' && depth == 0)) {
            out.push_back(evaluateFormula(s.substr(begin, i - begin), symbols));
            begin = i + 1;
        }
    }
    return out;
}

bool evaluateCondition(std::string_view condition, const ShapeSymbols& symbols) {
    // Two-character operators first, so "<=" is not read as "<".
    for (std::string_view op : {"<=", ">=", "==", "!=", "<", ">"}) {
        size_t at = condition.find(op);
        if (at == std::string_view::npos) continue;
        int64_t l = evaluateFormula(condition.substr(0, at), symbols);
        int64_t r = evaluateFormula(condition.substr(at + op.size()), symbols);
        if (op == "<=") return l <= r;
        if (op == ">=") return l >= r;
        if (op == "==") return l == r;
        if (op == "!=") return l != r;
        if (op == "<") return l < r;
        return l > r;
    }
    throw std::invalid_argument(fmt::format("condition '{}' needs a comparison (< <= > >= == !=)", condition));
}

}  // namespace llama
