#include "doccheck/doc_compare.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <unordered_map>

namespace llama {

namespace {

// What a line says, shapes and values alike: the unit of comparison.
struct Item {
    std::string name;
    bool isShape = false;
    Shape shape;
    std::string text;  // a value as written
    std::string written() const { return isShape ? "shape(" + shapeToString(shape) + ")" : text; }
};

std::vector<Item> itemsOf(const DebugLine& l) {
    std::vector<Item> items;
    for (const auto& [name, shape] : l.shapes) items.push_back({name, true, shape, {}});
    for (const auto& v : l.values) items.push_back({v.name, false, {}, v.text});
    return items;
}

// Numbers and the text between them, in order: "1 / 32" -> {"1", " / ", "32"}.
std::vector<std::string> numberPieces(const std::string& s) {
    std::vector<std::string> out;
    for (size_t i = 0; i < s.size();) {
        const bool number = std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '-' || s[i] == '.';
        size_t j = i;
        while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '-' || s[j] == '.') == number) ++j;
        out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

class Sameness {
public:
    Sameness(int docSeq, int logSeq) : docSeq_(docSeq), logSeq_(logSeq) {}

    bool operator()(const Item& doc, const Item& log) const {
        if (doc.name != log.name || doc.isShape != log.isShape) return false;
        if (doc.isShape) {
            if (doc.shape.size() != log.shape.size()) return false;
            for (size_t i = 0; i < doc.shape.size(); ++i)
                if (!sameNumber(doc.shape[i], log.shape[i])) return false;
            return true;
        }
        if (doc.text == log.text) return true;
        if (doc.text.starts_with('"')) return false;  // quoted text: no number in it maps
        auto d = numberPieces(doc.text), l = numberPieces(log.text);
        if (d.size() != l.size()) return false;
        for (size_t i = 0; i < d.size(); ++i) {
            if (d[i] == l[i]) continue;
            char* end = nullptr;
            long long dn = std::strtoll(d[i].c_str(), &end, 10);
            if (*end) return false;
            long long ln = std::strtoll(l[i].c_str(), &end, 10);
            if (*end || !sameNumber(dn, ln)) return false;
        }
        return true;
    }

private:
    bool sameNumber(int64_t doc, int64_t log) const { return doc == log || (docSeq_ > 0 && doc == docSeq_ && log == logSeq_); }
    int docSeq_, logSeq_;
};

// The prefill's sequence length: "sequenceLength: N" if a line says it, else the first block's x.
int sequenceLengthOf(const std::vector<DebugLine>& lines) {
    for (const DebugLine& l : lines) {
        for (const auto& v : l.values)
            if (v.name == "sequenceLength") return std::atoi(v.text.c_str());
        if (l.stage == "block")
            for (const auto& [name, shape] : l.shapes)
                if (name == "x" && !shape.empty()) return int(shape[0]);
    }
    return 0;
}

std::vector<LineDifference> differencesOf(const DebugLine& doc, const DebugLine& log, const Sameness& same) {
    std::vector<Item> d = itemsOf(doc), l = itemsOf(log);
    std::vector<LineDifference> out;
    for (size_t i = 0; i < std::max(d.size(), l.size()); ++i) {
        if (i < d.size() && i < l.size() && same(d[i], l[i])) continue;
        out.push_back({i < d.size() ? d[i].name : l[i].name, i < d.size() ? d[i].written() : "(nothing)",
                       i < l.size() ? l[i].written() : "(nothing)", 0, {}});
    }
    return out;
}

// For each difference of `row`, another documented line of the same layer that says what we
// logged, and is itself logged so: the document contradicts itself there.
void findDocumentedElsewhere(DocComparisonRow& row, const std::vector<DocComparisonRow>& rows, const Sameness& same) {
    const std::vector<Item> logged = itemsOf(*row.log);
    for (LineDifference& diff : row.differences) {
        auto it = std::find_if(logged.begin(), logged.end(), [&](const Item& i) { return i.name == diff.name; });
        if (it == logged.end()) continue;
        int bestDistance = 0;
        for (const DocComparisonRow& other : rows) {
            if (&other == &row || !other.log || other.doc.layer != row.doc.layer) continue;
            if (std::any_of(other.differences.begin(), other.differences.end(), [&](const LineDifference& o) { return o.name == diff.name; }))
                continue;
            for (const Item& item : itemsOf(other.doc)) {
                if (!same(item, *it)) continue;
                int distance = std::abs(other.doc.lineNo - row.doc.lineNo);
                if (diff.documentedElsewhere && distance >= bestDistance) continue;
                diff.documentedElsewhere = other.doc.lineNo;
                diff.elsewhere = item.written();
                bestDistance = distance;
            }
        }
    }
}

}  // namespace

bool DocComparisonRow::documentedInconsistency() const {
    return log && !differences.empty() &&
           std::all_of(differences.begin(), differences.end(), [](const LineDifference& d) { return d.documentedElsewhere > 0; });
}

int DocComparison::mismatches() const {
    return int(std::count_if(rows.begin(), rows.end(), [](const DocComparisonRow& r) { return r.log && !r.match() && !r.documentedInconsistency(); }));
}

int DocComparison::unpaired() const {
    return int(std::count_if(rows.begin(), rows.end(), [](const DocComparisonRow& r) { return !r.log; }));
}

int DocComparison::inconsistencies() const {
    return int(std::count_if(rows.begin(), rows.end(), [](const DocComparisonRow& r) { return r.documentedInconsistency(); }));
}

DocComparison compareDocToLog(std::vector<DebugLine> docLines, std::vector<DebugLine> logLines, DocCompareOptions options) {
    DocComparison result;
    if (options.anyLength) {
        result.documentedSeqLen = sequenceLengthOf(docLines);
        result.loggedSeqLen = sequenceLengthOf(logLines);
    }
    const Sameness same(result.documentedSeqLen, result.loggedSeqLen);
    result.logLines = std::move(logLines);
    const auto& log = result.logLines;
    std::unordered_map<std::string, std::vector<size_t>> bySignature;
    for (size_t i = 0; i < log.size(); ++i) bySignature[log[i].signature].push_back(i);

    std::vector<bool> used(log.size(), false);
    size_t next = 0;  // just after the previous pair
    for (auto& d : docLines) {
        DocComparisonRow row{std::move(d), nullptr, {}};
        auto it = bySignature.find(row.doc.signature);
        if (it != bySignature.end()) {
            int bestScore = -1;
            size_t best = 0;
            for (size_t i : it->second) {
                // The preferences as bits, most important highest; candidates come in log order,
                // so among equals the earliest wins.
                int score = 16 * (row.doc.startPos < 0 || log[i].startPos == row.doc.startPos) + 8 * (log[i].layer == row.doc.layer) +
                            4 * (log[i].exactText == row.doc.exactText) + 2 * !used[i] + (i >= next);
                if (score > bestScore) bestScore = score, best = i;
            }
            used[best] = true;
            next = best + 1;
            row.log = &log[best];
            row.differences = differencesOf(row.doc, *row.log, same);
        }
        result.rows.push_back(std::move(row));
    }
    for (auto& row : result.rows)
        if (row.log && !row.differences.empty()) findDocumentedElsewhere(row, result.rows, same);
    return result;
}

}  // namespace llama
