#include "doccheck/doc_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

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

// Items that Sameness may call the same share a key: name, kind and content, with every number a
// length may stand for under --any-length (the document's and the log's) written as one symbol.
// The key narrows a search to a few candidates in one hash look-up; Sameness decides among them
// (a key is coarser only where a document writes the log's length literally).
class ItemKeys {
public:
    ItemKeys(int docSeq, int logSeq) : docSeq_(docSeq), logSeq_(logSeq) {}

    std::string operator()(int layer, const Item& item) const {
        std::string key = fmt::format("{}|{}:{}", layer, item.name.size(), item.name);
        auto number = [&](long long n) { key += docSeq_ > 0 && (n == docSeq_ || n == logSeq_) ? std::string("L") : std::to_string(n); };
        if (item.isShape) {
            key += 'S';
            for (int64_t d : item.shape) number(d), key += ',';
        } else if (item.text.starts_with('"')) {  // quoted text is the same only as written
            key += 'Q';
            key += item.text;
        } else {  // the pieces Sameness compares: a whole number by value, other text as written
            key += 'P';
            for (const std::string& piece : numberPieces(item.text)) {
                char* end = nullptr;
                const long long n = std::strtoll(piece.c_str(), &end, 10);
                if (*end) key += fmt::format("{}:{}", piece.size(), piece);
                else key += '#', number(n), key += ',';
            }
        }
        return key;
    }

private:
    int docSeq_, logSeq_;
};

// For each difference of each row, another documented line of the same layer that says what we
// logged, and is itself logged so: the document contradicts itself there. Of several, the
// nearest in the document, then the first. The candidates are indexed by ItemKeys, so this is
// linear in the document's size rather than a scan of every other row per difference.
void findDocumentedElsewhere(std::vector<DocComparisonRow>& rows, const Sameness& same, const ItemKeys& keyOf) {
    struct Place {
        int lineNo;
        size_t row, item;
    };
    std::vector<std::vector<Item>> docItems(rows.size());
    std::unordered_map<std::string, std::vector<Place>> byKey;
    for (size_t r = 0; r < rows.size(); ++r) {
        if (!rows[r].log) continue;
        docItems[r] = itemsOf(rows[r].doc);
        // An item this row itself differs on says nothing about the log.
        std::unordered_set<std::string_view> differing;
        for (const LineDifference& d : rows[r].differences) differing.insert(d.name);
        for (size_t k = 0; k < docItems[r].size(); ++k)
            if (!differing.count(docItems[r][k].name)) byKey[keyOf(rows[r].doc.layer, docItems[r][k])].push_back({rows[r].doc.lineNo, r, k});
    }
    for (auto& [key, places] : byKey)
        std::stable_sort(places.begin(), places.end(), [](const Place& a, const Place& b) { return a.lineNo < b.lineNo; });

    for (DocComparisonRow& row : rows) {
        if (!row.log || row.differences.empty()) continue;
        const std::vector<Item> logged = itemsOf(*row.log);
        std::unordered_map<std::string_view, const Item*> firstByName;
        for (const Item& item : logged) firstByName.try_emplace(item.name, &item);
        const int at = row.doc.lineNo;
        for (LineDifference& diff : row.differences) {
            auto named = firstByName.find(diff.name);
            if (named == firstByName.end()) continue;
            auto found = byKey.find(keyOf(row.doc.layer, *named->second));
            if (found == byKey.end()) continue;
            const std::vector<Place>& places = found->second;
            auto matches = [&](const Place& p) { return same(docItems[p.row][p.item], *named->second); };
            auto distance = [&](const Place& p) { return std::abs(p.lineNo - at); };
            // After: the first that matches is the nearest, and the first of its line.
            auto mid = std::lower_bound(places.begin(), places.end(), at, [](const Place& p, int lineNo) { return p.lineNo < lineNo; });
            const Place* best = nullptr;
            for (auto p = mid; p != places.end() && !best; ++p)
                if (matches(*p)) best = &*p;
            // Before: nearer wins, as near wins if it comes first.
            for (auto p = mid; p != places.begin();) {
                --p;
                if (best && distance(*p) > distance(*best)) break;
                if (matches(*p) && (!best || distance(*p) < distance(*best) || std::tie(p->row, p->item) < std::tie(best->row, best->item)))
                    best = &*p;
            }
            if (!best) continue;
            diff.documentedElsewhere = best->lineNo;
            diff.elsewhere = docItems[best->row][best->item].written();
        }
    }
}

// Equal strings, equal small ids, so that the pairing's keys are a few integers, not whole lines.
class Interner {
public:
    int add(std::string_view s) { return ids_.try_emplace(s, int(ids_.size())).first->second; }
    int find(std::string_view s) const {
        auto it = ids_.find(s);
        return it == ids_.end() ? -1 : it->second;
    }

private:
    std::unordered_map<std::string_view, int> ids_;  // views into the log's lines, which outlive it
};

// The log lines of one signature that agree with a documented line on some of startPos, layer and
// exact text, in log order, with skips over the ones already paired.
struct Candidates {
    std::vector<size_t> lines;
    std::vector<size_t> skip;  // skip[p] > p: every entry in [p, skip[p]) was paired when it was set

    // The first entry at or after p whose line is not paired yet (lines.size() if none); the
    // skips are shortened on the way, so repeated searches cost almost nothing.
    size_t firstUnused(size_t p, const std::vector<char>& used) {
        size_t x = p;
        while (x < lines.size() && used[lines[x]]) x = skip[x] > x ? skip[x] : x + 1;
        for (size_t q = p; q < x;) {
            const size_t after = skip[q] > q ? skip[q] : q + 1;
            skip[q] = x;
            q = after;
        }
        return x;
    }
};

// The three preferences that depend on the lines alone, as bits (most important highest).
enum Agreement : int { kSameText = 1, kSameLayer = 2, kSamePass = 4 };

struct GroupKey {
    int agreement, signature, startPos, layer, exactText;  // only the fields `agreement` names count
    bool operator==(const GroupKey&) const = default;
};
struct GroupKeyHash {
    size_t operator()(const GroupKey& k) const {
        size_t h = size_t(k.agreement);
        for (int v : {k.signature, k.startPos, k.layer, k.exactText}) h = h * 1000003u ^ std::hash<int>{}(v);
        return h;
    }
};
GroupKey groupKey(int agreement, int signature, int startPos, int layer, int exactText) {
    return {agreement, signature, agreement & kSamePass ? startPos : 0, agreement & kSameLayer ? layer : 0,
            agreement & kSameText ? exactText : 0};
}

// compareDocToLog's preferences without a scan of every candidate per documented line. The
// candidates that agree on the same pass, layer and text form a group; the best group a line has
// is the first non-empty one in the order of the preferences' bits (a group that agrees less
// holds only lines that agree less, once the groups above it are empty), and within it the first
// unpaired line after the previous pair, else the first unpaired, else the first after, else the
// first. Each log line is in at most 8 groups, and only groups some documented line asks for are
// kept.
class LogIndex {
public:
    LogIndex(const std::vector<DebugLine>& log, const std::vector<DebugLine>& docs) : used_(log.size(), 0) {
        for (const DebugLine& l : log) signatures_.add(l.signature), exactTexts_.add(l.exactText);
        for (const DebugLine& d : docs) {
            const int signature = signatures_.find(d.signature), exact = exactTexts_.find(d.exactText);
            if (signature < 0) continue;
            for (int agreement = 0; agreement < 8; ++agreement) groups_.try_emplace(groupKey(agreement, signature, d.startPos, d.layer, exact));
        }
        for (size_t i = 0; i < log.size(); ++i) {
            const int signature = signatures_.find(log[i].signature), exact = exactTexts_.find(log[i].exactText);
            for (int agreement = 0; agreement < 8; ++agreement) {
                auto group = groups_.find(groupKey(agreement, signature, log[i].startPos, log[i].layer, exact));
                if (group == groups_.end()) continue;
                group->second.lines.push_back(i);
                group->second.skip.push_back(0);
            }
        }
    }

    // The index of the documented line's partner in the log, which is then paired; none when no
    // log line has its signature. `next` is just after the previous pair.
    std::optional<size_t> pair(const DebugLine& doc, size_t next) {
        const int signature = signatures_.find(doc.signature), exact = exactTexts_.find(doc.exactText);
        if (signature < 0) return std::nullopt;
        for (int agreement = 7; agreement >= 0; --agreement) {
            if ((agreement & kSamePass) && doc.startPos < 0) continue;  // a line before any pass agrees with every pass
            auto group = groups_.find(groupKey(agreement, signature, doc.startPos, doc.layer, exact));
            if (group == groups_.end() || group->second.lines.empty()) continue;
            Candidates& c = group->second;
            const size_t after = size_t(std::lower_bound(c.lines.begin(), c.lines.end(), next) - c.lines.begin());
            size_t p = c.firstUnused(after, used_);
            if (p == c.lines.size()) p = c.firstUnused(0, used_);
            if (p == c.lines.size()) p = after < c.lines.size() ? after : 0;
            used_[c.lines[p]] = 1;
            return c.lines[p];
        }
        return std::nullopt;
    }

private:
    Interner signatures_, exactTexts_;
    std::unordered_map<GroupKey, Candidates, GroupKeyHash> groups_;
    std::vector<char> used_;
};
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
    LogIndex index(log, docLines);
    size_t next = 0;  // just after the previous pair
    for (auto& d : docLines) {
        DocComparisonRow row{std::move(d), nullptr, {}};
        if (auto best = index.pair(row.doc, next)) {
            next = *best + 1;
            row.log = &log[*best];
            row.differences = differencesOf(row.doc, *row.log, same);
        }
        result.rows.push_back(std::move(row));
    }
    findDocumentedElsewhere(result.rows, same, ItemKeys(result.documentedSeqLen, result.loggedSeqLen));
    return result;
}

}  // namespace llama
