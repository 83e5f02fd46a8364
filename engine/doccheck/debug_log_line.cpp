#include "doccheck/debug_log_line.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace llama {

namespace {

// Message beginnings (or, with a leading '*', fragments) -> the stage whose emit writes them.
// More specific entries come first.
struct StagePattern {
    std::string_view text;
    std::string_view stage;
};
constexpr StagePattern kPatterns[] = {
    {"Tokenized the prompt", "tokenize"},
    {"Created input tokens tensor", "tokens_tensor"},
    {"Running ", "sequence_loop"},
    {"LlamaTransformer.prepare started", "input_embeddings"},
    {"Calling ml.Fwd_Get_Rows", "input_embeddings"},
    {"Slicing PrecomputedFreqsCis", "freqs_cis"},
    {"LlamaTransformer.prepare finished", "mask"},
    {"Calling LlamaTransformerBlock.Forward", "block"},
    {"LlamaTransformerBlock.Forward started", "block"},
    {"Calling RMSNorm for tensor x", "attention_norm"},
    {"Calling LlamaAttention.Forward", "attention"},
    {"[Scheduling goroutine] ml.LinearTransformation", "qkv"},
    {"[Calling in goroutine] ml.LinearTransformation", "qkv"},  // the walkthrough's; we log only the scheduling
    {"Parallel results", "qkv"},
    {"Reshaping results", "reshape_heads"},
    {"applyRotaryEmbeddings results", "rotary"},
    {"Writing xk", "cache_write"},
    {"Reading cached positions", "cache_read"},
    {"attentionRepeatKV", "repeat_kv"},
    {"Multiple transposing results", "transposes"},
    {"Calling ml.MatMul for xq", "scores_matmul"},
    {"Calling ml.DivToScalar", "scores_scale"},
    {"Calling ml.Add to calculate scores", "scores_mask"},
    {"Skipping addition scores + mask", "scores_mask"},
    {"Converting scores tensor", "scores_softmax"},
    {"Calling ml.Softmax", "scores_softmax"},
    {"Calling ml.MatMul for scores", "attention_values"},
    {"Transposing and reshaping output", "attention_reshape"},
    {"*LlamaAttention.attn_wo", "attention_wo"},
    {"Calling ml.Add to calculate x", "attention_residual"},
    {"Calling RMSNorm for tensor h", "ffn_norm"},
    {"*LlamaFeedForward.ffn_gate", "ffn_gate"},
    {"Calling ml.Silu", "ffn_silu"},
    {"*LlamaFeedForward.ffn_up", "ffn_up"},
    {"Calling ml.MultiplyElementwise", "ffn_multiply"},
    {"*LlamaFeedForward.ffn_down", "ffn_down"},
    {"Calling ml.Add to calculate h", "ffn_residual"},
    {"Calling RMSNorm for currentTensor", "output_norm"},
    {"*LlamaTransformer.output weights", "output_projection"},
    {"Converting output tensor", "logits"},
    {"Sampled next token", "sample"},
    {"Dry run:", "sample"},
};

// Stages that run outside the transformer blocks: a line of theirs ends the current layer.
bool outsideBlocks(std::string_view stage) {
    for (std::string_view s : {"tokenize", "tokens_tensor", "sequence_loop", "input_embeddings", "freqs_cis", "mask", "output_norm",
                               "output_projection", "logits", "sample"})
        if (stage == s) return true;
    return false;
}

Shape parseDims(const std::string& dims) {
    Shape s;
    std::istringstream in(dims);
    for (int64_t d; in >> d;) s.push_back(d);
    return s;
}

// The word written before a shape names it: "xq: shape(...)", "tok_embd shape(...)"; after
// "weights" or "tensor", the word before that ("attn_wq weights shape(...)"), and a remark in
// parentheses is skipped ("currentTensor (normalized result of ...) shape(...)").
std::string nameBefore(std::string text) {
    while (!text.empty() && text.back() == ' ') text.pop_back();
    if (!text.empty() && text.back() == ')') {
        size_t open = text.rfind('(');
        if (open != std::string::npos) text.erase(open);
    }
    std::istringstream in(text);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    while (!words.empty()) {
        std::string w = words.back();
        while (!w.empty() && (w.back() == ':' || w.back() == ',')) w.pop_back();
        if (!w.empty() && w != "weights" && w != "tensor" && w != "->") return w;
        words.pop_back();
    }
    return "?";
}

// What follows "[DEBUG]": a timestamp or "..." (or nothing), the message, then "(N.NNNN secs)",
// "..." (the walkthrough's documents elide both ends so) or nothing. Parsed by hand rather than
// with std::regex, whose backtracking recurses per character and overflows the stack on the
// long lines a long prompt's token list makes.
std::string messageOf(std::string_view s) {
    auto trim = [&] {
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    };
    trim();
    auto isTimestamp = [](std::string_view t) {
        if (t.size() < 10 || t[2] != ':' || t[5] != ':' || t[8] != '.') return false;
        for (size_t i : {0, 1, 3, 4, 6, 7, 9})
            if (!std::isdigit(static_cast<unsigned char>(t[i]))) return false;
        return true;
    };
    if (isTimestamp(s)) {
        s.remove_prefix(9);
        while (!s.empty() && std::isdigit(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    } else if (s.starts_with("...")) {
        s.remove_prefix(3);
    } else if (s.starts_with("…")) {
        s.remove_prefix(std::string_view("…").size());
    }
    trim();
    if (s.ends_with(" secs)")) {
        size_t open = s.rfind('(');
        std::string_view number = open == std::string_view::npos ? "" : s.substr(open + 1, s.size() - open - 7);
        if (!number.empty() && number.find_first_not_of("0123456789.") == std::string_view::npos) s = s.substr(0, open);
    } else if (s.ends_with("...")) {
        s.remove_suffix(3);
    } else if (s.ends_with("…")) {
        s.remove_suffix(std::string_view("…").size());
    }
    trim();
    return std::string(s);
}

// The integer right after `label`, if the message has one there.
std::optional<int> numberAfter(const std::string& message, std::string_view label) {
    size_t at = message.find(label);
    if (at == std::string::npos) return std::nullopt;
    size_t begin = at + label.size(), end = begin;
    while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end]))) ++end;
    if (end == begin) return std::nullopt;
    return std::stoi(message.substr(begin, end - begin));
}

// Numbers (a run of them, like a token list or "[0, 9)", counts as one) become '#' and quoted
// text becomes "?": what differs between runs of the same operation.
std::string blankNumbersAndQuotes(const std::string& s) {
    auto digit = [&](size_t i) { return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); };
    auto numberAt = [&](size_t i) { return digit(i) || (i < s.size() && s[i] == '-' && digit(i + 1)); };
    auto skipNumber = [&](size_t i) {
        if (s[i] == '-') ++i;
        while (digit(i) || (i < s.size() && s[i] == '.' && digit(i + 1))) ++i;
        return i;
    };
    std::string out;
    for (size_t i = 0; i < s.size();) {
        if (s[i] == '"') {
            size_t j = i + 1;
            while (j < s.size() && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
            out += "\"?\"";
            i = std::min(j + 1, s.size());
        } else if (numberAt(i)) {
            i = skipNumber(i);
            // Separators followed by another number belong to the same run.
            for (size_t j = i; j < s.size() && (s[j] == ' ' || s[j] == ',');) {
                if (numberAt(j + 1)) {
                    i = j = skipNumber(j + 1);
                } else {
                    ++j;
                }
            }
            out += '#';
        } else {
            out += s[i++];
        }
    }
    return out;
}

}  // namespace

std::string stageOfMessage(const std::string& message) {
    for (const auto& p : kPatterns) {
        if (p.text.front() == '*') {
            if (message.find(p.text.substr(1)) != std::string::npos) return std::string(p.stage);
        } else if (message.rfind(p.text, 0) == 0) {
            return std::string(p.stage);
        }
    }
    return "";
}

std::vector<DebugLine> readDebugLines(std::istream& in) {
    std::vector<DebugLine> out;
    int lineNo = 0, currentLayer = 0, currentStartPos = -1;
    std::string previousStage;
    for (std::string text; std::getline(in, text);) {
        ++lineNo;
        size_t at = text.find("[DEBUG]");
        if (at == std::string::npos) continue;
        std::string message = messageOf(std::string_view(text).substr(at + 7));
        if (std::none_of(message.begin(), message.end(), [](unsigned char c) { return std::isalnum(c); })) continue;
        DebugLine d;
        d.lineNo = lineNo;
        d.message = std::move(message);
        d.stage = stageOfMessage(d.message);
        // "Returning tensor output: ..." closes whichever stage wrote the line before it.
        if (d.stage.empty() && d.message.rfind("Returning tensor", 0) == 0) d.stage = previousStage;
        if (auto layer = numberAfter(d.message, "layer: ")) currentLayer = *layer;
        else if (outsideBlocks(d.stage)) currentLayer = 0;
        d.layer = d.stage.empty() ? 0 : currentLayer;
        if (auto pos = numberAfter(d.message, "startPos: ")) currentStartPos = *pos;
        else if (auto pos2 = numberAfter(d.message, "startPos ")) currentStartPos = *pos2;
        d.startPos = currentStartPos;

        // Shapes out, "shape(?)" in.
        std::string blanked;
        size_t last = 0;
        for (size_t open; (open = d.message.find("shape([", last)) != std::string::npos;) {
            size_t close = d.message.find("])", open);
            if (close == std::string::npos) break;
            d.shapes.emplace_back(nameBefore(d.message.substr(0, open)), parseDims(d.message.substr(open + 7, close - open - 7)));
            blanked += d.message.substr(last, open - last) + "shape(?)";
            last = close + 2;
        }
        blanked += d.message.substr(last);
        d.exactText = blanked;
        d.signature = blankNumbersAndQuotes(blanked);
        previousStage = d.stage;
        out.push_back(std::move(d));
    }
    return out;
}

std::vector<DebugLine> readDebugLinesFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open '" + path + "'");
    return readDebugLines(in);
}

std::string formatShapes(const std::vector<std::pair<std::string, Shape>>& shapes) {
    std::string s;
    for (const auto& [name, shape] : shapes) s += (s.empty() ? "" : ", ") + name + "=" + shapeToString(shape);
    return s.empty() ? "-" : s;
}

}  // namespace llama
