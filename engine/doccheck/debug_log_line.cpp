#include "doccheck/debug_log_line.h"

#include "io/input_file.h"
#include "stages/stage_catalog.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace llama {

namespace {

// A line of a stage's wording as the literal pieces around its {fields}: a message is that
// line when the pieces appear in it in order (the first at its start and the last at its end
// unless a field stands there).
struct WordingLine {
    std::string_view stage;
    std::vector<std::string_view> pieces;
    bool fieldFirst = false, fieldLast = false;

    bool matches(std::string_view message) const {
        size_t at = 0;
        for (size_t i = 0; i < pieces.size(); ++i) {
            const bool atStart = i == 0 && !fieldFirst, atEnd = i + 1 == pieces.size() && !fieldLast;
            size_t found = atEnd ? (message.ends_with(pieces[i]) ? message.size() - pieces[i].size() : std::string_view::npos)
                         : atStart ? (message.starts_with(pieces[i]) ? 0 : std::string_view::npos)
                                   : message.find(pieces[i], at);
            if (found == std::string_view::npos || found < at || (atStart && atEnd && found != 0)) return false;
            at = found + pieces[i].size();
        }
        return true;
    }
};

std::vector<WordingLine> splitWording(std::string_view stage, std::string_view wording) {
    std::vector<WordingLine> lines;
    for (std::string_view rest = wording; !rest.empty();) {
        size_t newline = rest.find('\n');
        std::string_view text = rest.substr(0, newline);
        rest = newline == std::string_view::npos ? std::string_view{} : rest.substr(newline + 1);
        WordingLine line{stage, {}};
        line.fieldFirst = text.starts_with('{');
        line.fieldLast = text.ends_with('}');
        for (size_t at = 0; at < text.size();) {
            size_t open = text.find('{', at);
            if (open > at) line.pieces.push_back(text.substr(at, open == std::string_view::npos ? std::string_view::npos : open - at));
            if (open == std::string_view::npos) break;
            at = text.find('}', open) + 1;
        }
        lines.push_back(std::move(line));
    }
    return lines;
}

// Every line the catalog's wordings can write, and the documents' lines we do not write.
const std::vector<WordingLine>& knownLines() {
    static const std::vector<WordingLine> lines = [] {
        std::vector<WordingLine> out;
        for (const StageInfo& s : stageCatalog())
            for (std::string_view wording : {s.wording, s.skipped})
                for (WordingLine& l : splitWording(s.key, wording)) out.push_back(std::move(l));
        return out;
    }();
    return lines;
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
    int value = 0;
    // from_chars: a number too large for int is no layer or position (std::stoi would throw).
    if (end == begin || std::from_chars(message.data() + begin, message.data() + end, value).ec != std::errc()) return std::nullopt;
    return value;
}

// The last kLabelWindow bytes before `end`: a label or a name stands right before its value, and
// looking no further keeps a line with many values linear in its length (a 300 KB line took 10 s
// when every value re-read the whole line before it).
constexpr size_t kLabelWindow = 256;
std::string_view recent(std::string_view s, size_t end) {
    const size_t begin = end > kLabelWindow ? end - kLabelWindow : 0;
    return s.substr(begin, end - begin);
}

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The word a value is written after: "startPos: 0" -> startPos, "CacheK[0]" -> CacheK; words
// without a letter ("/", "1") are passed over.
std::string labelBefore(std::string_view text) {
    std::istringstream in{std::string(text)};
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    for (auto w = words.rbegin(); w != words.rend(); ++w) {
        std::string word = *w;
        while (!word.empty() && !isWordChar(word.back())) word.pop_back();
        while (!word.empty() && !isWordChar(word.front())) word.erase(word.begin());
        if (word.find('[') != std::string::npos) word.erase(word.find('['));
        if (std::any_of(word.begin(), word.end(), [](unsigned char c) { return std::isalpha(c); })) return word;
    }
    return "?";
}

const std::vector<std::string_view> kDtypeWords = {"BFloat16", "Float32", "Float16", "Int32", "Complex64", "BF16", "F32", "F16"};

// Blanks every value of a message whose shapes are already blanked: numbers (a run of them,
// like a token list, "[0, 9)" or "1 / 32", counts as one) become '#', quoted text "?", dtype
// words and the tensor after "-> tensor " '?'. What is left pairs the same operation across
// runs; the values go to `values`.
std::string blankValues(const std::string& s, std::vector<LineValue>& values) {
    auto digit = [&](size_t i) { return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); };
    // A digit inside a word ("attn_wq", "Float32", "w1") is part of the word.
    auto numberAt = [&](size_t i) {
        if (i > 0 && isWordChar(s[i - 1])) return false;
        return digit(i) || (i < s.size() && s[i] == '-' && digit(i + 1));
    };
    auto skipNumber = [&](size_t i) {
        if (s[i] == '-') ++i;
        while (digit(i) || (i < s.size() && s[i] == '.' && digit(i + 1))) ++i;
        return i;
    };
    auto wordAt = [&](size_t i, std::string_view w) {
        return s.compare(i, w.size(), w) == 0 && (i == 0 || !isWordChar(s[i - 1])) &&
               (i + w.size() == s.size() || !isWordChar(s[i + w.size()]));
    };
    static constexpr std::string_view kTarget = "-> tensor ";
    std::string out;
    for (size_t i = 0; i < s.size();) {
        size_t end = i;
        std::string blank;
        std::string name;
        if (s[i] == '"') {
            end = i + 1;
            while (end < s.size() && s[end] != '"') end += s[end] == '\\' ? 2 : 1;
            end = std::min(end + 1, s.size());
            blank = "\"?\"";
        } else if (numberAt(i)) {
            end = skipNumber(i);
            // Separators followed by another number belong to the same run.
            for (size_t j = end;;) {
                size_t k = j;
                while (k < s.size() && (s[k] == ' ' || s[k] == ',' || s[k] == '/')) ++k;
                if (k == j || !numberAt(k)) break;
                end = j = skipNumber(k);
            }
            blank = "#";
        } else if (s.compare(i, kTarget.size(), kTarget) == 0) {
            out += kTarget;
            i += kTarget.size();
            end = i;
            while (end < s.size() && isWordChar(s[end])) ++end;
            if (end == i) continue;
            blank = "?";
            name = "target";
        } else if (auto w = std::find_if(kDtypeWords.begin(), kDtypeWords.end(), [&](std::string_view d) { return wordAt(i, d); });
                   w != kDtypeWords.end()) {
            end = i + w->size();
            blank = "?";
            name = "dtype";
        } else {
            out += s[i++];
            continue;
        }
        values.push_back({name.empty() ? labelBefore(recent(s, i)) : name, s.substr(i, end - i)});
        out += blank;
        i = end;
    }
    return out;
}

}  // namespace

std::vector<std::string> stagesOfMessage(const std::string& message) {
    std::vector<std::string> stages;
    for (const WordingLine& line : knownLines())
        if (line.matches(message) && std::find(stages.begin(), stages.end(), line.stage) == stages.end())
            stages.emplace_back(line.stage);
    return stages;
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
        // A line several stages write ("Returning tensor output: ...") belongs to the stage of
        // the line before it when that is one of them.
        const auto stages = stagesOfMessage(d.message);
        if (!stages.empty())
            d.stage = std::find(stages.begin(), stages.end(), previousStage) != stages.end() ? previousStage : stages.front();
        if (auto layer = numberAfter(d.message, "layer: ")) currentLayer = *layer;
        else if (const StageInfo* info = findStage(d.stage); info && !info->inBlock) currentLayer = 0;
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
            d.shapes.emplace_back(nameBefore(std::string(recent(d.message, open))), parseDims(d.message.substr(open + 7, close - open - 7)));
            blanked += d.message.substr(last, open - last) + "shape(?)";
            last = close + 2;
        }
        blanked += d.message.substr(last);
        d.exactText = blanked;
        d.signature = blankValues(blanked, d.values);
        previousStage = d.stage;
        out.push_back(std::move(d));
    }
    return out;
}

std::vector<DebugLine> readDebugLinesFile(const std::string& path) {
    checkInputFile(path, "file", 2);
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open '" + path + "'");
    return readDebugLines(in);
}

std::string formatValues(const std::vector<LineValue>& values) {
    std::string s;
    for (const auto& [name, text] : values) s += (s.empty() ? "" : ", ") + name + "=" + text;
    return s.empty() ? "-" : s;
}

std::string formatShapes(const std::vector<std::pair<std::string, Shape>>& shapes) {
    std::string s;
    for (const auto& [name, shape] : shapes) s += (s.empty() ? "" : ", ") + name + "=" + shapeToString(shape);
    return s.empty() ? "-" : s;
}

}  // namespace llama
