#include "doccheck/chapter_document.h"

#include <md4c.h>

#include <cctype>
#include <map>
#include <stdexcept>

namespace llama {

namespace {

// md4c hands entities over undecoded (decoding is the renderer's job). The chapters use the
// few that Markdown text needs; numeric ones are decoded to UTF-8, other names shown as written.
std::string decodeEntity(std::string_view entity) {
    static const std::map<std::string_view, std::string_view> named = {
        {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&nbsp;", "\u00a0"}};
    if (auto it = named.find(entity); it != named.end()) return std::string(it->second);
    if (entity.size() < 4 || entity[1] != '#') return std::string(entity);
    const bool hex = entity[2] == 'x' || entity[2] == 'X';
    unsigned long cp = std::strtoul(std::string(entity.substr(hex ? 3 : 2)).c_str(), nullptr, hex ? 16 : 10);
    if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    std::string out;
    if (cp < 0x80) out += char(cp);
    else if (cp < 0x800) out += {char(0xC0 | cp >> 6), char(0x80 | (cp & 0x3F))};
    else if (cp < 0x10000) out += {char(0xE0 | cp >> 12), char(0x80 | (cp >> 6 & 0x3F)), char(0x80 | (cp & 0x3F))};
    else out += {char(0xF0 | cp >> 18), char(0x80 | (cp >> 12 & 0x3F)), char(0x80 | (cp >> 6 & 0x3F)), char(0x80 | (cp & 0x3F))};
    return out;
}

std::string attribute(const MD_ATTRIBUTE& a) {
    std::string out;
    if (a.size == 0 || !a.substr_offsets) return out;  // an indented code block has no language
    for (unsigned i = 0; a.substr_offsets[i] < a.size; ++i) {
        std::string_view part(a.text + a.substr_offsets[i], a.substr_offsets[i + 1] - a.substr_offsets[i]);
        out += a.substr_types[i] == MD_TEXT_ENTITY ? decodeEntity(part) : std::string(part);
    }
    return out;
}

// The `$ ` lines of a console block (a line ending in '\' continues on the next).
std::vector<std::string> consoleCommands(const std::string& code) {
    std::vector<std::string> commands;
    bool continued = false;
    size_t pos = 0;
    while (pos < code.size()) {
        size_t end = code.find('\n', pos);
        if (end == std::string::npos) end = code.size();
        const std::string line = code.substr(pos, end - pos);
        pos = end + 1;
        if (continued) commands.back() += "\n" + line;
        else if (line.rfind("$ ", 0) == 0) commands.push_back(line.substr(2));
        else continue;
        continued = !line.empty() && line.back() == '\\';
    }
    return commands;
}

class Builder {
public:
    ChapterDocument doc;

    int enterBlock(MD_BLOCKTYPE type, void* detail) {
        switch (type) {
        case MD_BLOCK_UL: closeText(); lists.push_back({false, 0}); break;
        case MD_BLOCK_OL: closeText(); lists.push_back({true, static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start}); break;
        case MD_BLOCK_LI:
            closeText();
            if (!lists.empty()) pendingMarker = lists.back().ordered ? std::to_string(lists.back().next++) + "." : "\u2022";
            break;
        case MD_BLOCK_QUOTE: closeText(); ++quoteDepth; break;
        case MD_BLOCK_H: openText(ChapterBlock::Kind::Heading, int(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level)); break;
        case MD_BLOCK_P: openText(ChapterBlock::Kind::Paragraph, 0); break;
        case MD_BLOCK_HR: closeText(); push(ChapterBlock::Kind::Rule); break;
        case MD_BLOCK_CODE: {
            closeText();
            ChapterBlock& b = push(ChapterBlock::Kind::Code);
            b.language = attribute(static_cast<MD_BLOCK_CODE_DETAIL*>(detail)->lang);
            b.tryIt = pendingTryIt;
            inCode = true;
            break;
        }
        case MD_BLOCK_HTML: closeText(); html.clear(); inHtml = true; break;
        case MD_BLOCK_TABLE: closeText(); push(ChapterBlock::Kind::Table); inTable = true; break;
        case MD_BLOCK_TR: if (inTable) doc.blocks.back().rows.emplace_back(); break;
        case MD_BLOCK_TH:
        case MD_BLOCK_TD: if (inTable) doc.blocks.back().rows.back().emplace_back(); break;
        default: break;
        }
        if (type != MD_BLOCK_HTML && type != MD_BLOCK_DOC) pendingTryIt = false;
        return 0;
    }

    int leaveBlock(MD_BLOCKTYPE type) {
        switch (type) {
        case MD_BLOCK_UL:
        case MD_BLOCK_OL: closeText(); lists.pop_back(); break;
        case MD_BLOCK_LI: closeText(); pendingMarker.clear(); break;
        case MD_BLOCK_QUOTE: closeText(); --quoteDepth; break;
        case MD_BLOCK_H:
        case MD_BLOCK_P: closeText(); break;
        case MD_BLOCK_CODE: {
            ChapterBlock& b = doc.blocks.back();
            if (!b.code.empty() && b.code.back() == '\n') b.code.pop_back();
            if (b.language == "console") b.commands = consoleCommands(b.code);
            inCode = false;
            break;
        }
        case MD_BLOCK_HTML: inHtml = false; readHtml(html); break;
        case MD_BLOCK_TABLE: inTable = false; break;
        default: break;
        }
        return 0;
    }

    int enterSpan(MD_SPANTYPE type, void* detail) {
        if (type == MD_SPAN_EM) ++emphasis;
        else if (type == MD_SPAN_STRONG) ++strong;
        else if (type == MD_SPAN_CODE) ++code;
        else if (type == MD_SPAN_A) links.push_back(attribute(static_cast<MD_SPAN_A_DETAIL*>(detail)->href));
        else if (type == MD_SPAN_IMG) images.push_back(attribute(static_cast<MD_SPAN_IMG_DETAIL*>(detail)->src));
        return 0;
    }

    int leaveSpan(MD_SPANTYPE type) {
        if (type == MD_SPAN_EM) --emphasis;
        else if (type == MD_SPAN_STRONG) --strong;
        else if (type == MD_SPAN_CODE) --code;
        else if (type == MD_SPAN_A && !links.empty()) links.pop_back();
        else if (type == MD_SPAN_IMG && !images.empty()) images.pop_back();
        return 0;
    }

    int text(MD_TEXTTYPE type, std::string_view s) {
        if (inHtml) {
            html += s;
            return 0;
        }
        if (inCode) {
            doc.blocks.back().code += s;
            return 0;
        }
        switch (type) {
        case MD_TEXT_HTML: readHtml(s); break;  // inline HTML: a comment, or a tag we do not draw
        case MD_TEXT_ENTITY: addText(decodeEntity(s)); break;
        case MD_TEXT_SOFTBR: addText(" "); break;
        case MD_TEXT_BR: addText("\n"); break;
        case MD_TEXT_NULLCHAR: addText("\uFFFD"); break;
        default: addText(std::string(s)); break;
        }
        return 0;
    }

    void finish() {
        closeText();
        // A check still open at the end stays folded, as a browser shows an unclosed <details>.
        std::map<std::string, int> seen;  // GitHub numbers repeated anchors: x, x-1, x-2
        for (ChapterBlock& b : doc.blocks) {
            if (b.kind != ChapterBlock::Kind::Heading) continue;
            const std::string base = headingAnchor(spansText(b.spans));
            const int n = seen[base]++;
            b.anchor = n == 0 ? base : base + "-" + std::to_string(n);
        }
    }

private:
    struct List {
        bool ordered;
        unsigned next;
    };
    std::vector<List> lists;
    std::string pendingMarker;
    int quoteDepth = 0;
    int emphasis = 0, strong = 0, code = 0;
    std::vector<std::string> links, images;
    bool inCode = false, inHtml = false, inTable = false, pendingTryIt = false;
    std::string html;
    int openText_ = -1;  // index of the heading or paragraph receiving text, -1: none
    int check = -1;      // the check being read (nested <details> belong to the outer one)
    int detailsDepth = 0;

    ChapterBlock& push(ChapterBlock::Kind kind) {
        ChapterBlock& b = doc.blocks.emplace_back();
        b.kind = kind;
        b.depth = int(lists.size()) + quoteDepth;
        b.marker = std::move(pendingMarker);
        pendingMarker.clear();
        b.check = check;
        return b;
    }
    void openText(ChapterBlock::Kind kind, int level) {
        closeText();
        push(kind).level = level;
        openText_ = int(doc.blocks.size()) - 1;
    }
    void closeText() {
        if (openText_ >= 0 && doc.blocks[openText_].spans.empty()) {
            // Nothing but a comment or tags: the marker (if any) goes to the next block.
            if (pendingMarker.empty()) pendingMarker = doc.blocks[openText_].marker;
            doc.blocks.pop_back();  // the open block is always the last one
        }
        openText_ = -1;
    }

    void addText(std::string s) {
        MarkdownLine* line = nullptr;
        if (inTable && !doc.blocks.back().rows.empty() && !doc.blocks.back().rows.back().empty()) {
            line = &doc.blocks.back().rows.back().back();
        } else {
            // Tight lists' items get their text without a paragraph around it.
            if (openText_ < 0) openText(ChapterBlock::Kind::Paragraph, 0);
            line = &doc.blocks[openText_].spans;
        }
        // GitHub unescapes "\|" in table cells, code spans too (the pipe would end the cell); md4c
        // leaves the backslash in code spans.
        if (inTable && code > 0)
            for (size_t p; (p = s.find("\\|")) != std::string::npos;) s.erase(p, 1);
        // Spaces on both sides of a dropped comment or tag show as one, as in a browser.
        if (code == 0 && !line->empty() && !line->back().text.empty() && line->back().text.back() == ' ')
            s.erase(0, s.find_first_not_of(' ') == std::string::npos ? s.size() : s.find_first_not_of(' '));
        if (s.empty()) return;
        MarkdownSpan span{std::move(s), code > 0, emphasis > 0, strong > 0, links.empty() ? "" : links.back(), images.empty() ? "" : images.back()};
        if (!line->empty() && line->back().sameStyle(span) && span.text != "\n" && line->back().text != "\n")
            line->back().text += span.text;
        else
            line->push_back(std::move(span));
    }

    // Raw HTML, which md4c passes through unparsed. Only what the chapters use is read: comments
    // (dropped; `<!-- try-it` marks the next code block), <details> and <summary> (a check),
    // </details>. Any other tag is dropped and text between tags is kept, so nothing vanishes.
    void readHtml(std::string_view s) {
        std::string rest;
        for (size_t pos = 0; pos < s.size();) {
            if (s.substr(pos, 4) == "<!--") {
                const size_t end = s.find("-->", pos + 4);
                if (trim(std::string(s.substr(pos + 4, end - pos - 4))).rfind("try-it", 0) == 0) pendingTryIt = true;
                pos = end == std::string_view::npos ? s.size() : end + 3;
            } else if (s[pos] == '<') {
                const size_t end = s.find('>', pos);
                std::string tag(s.substr(pos + 1, (end == std::string_view::npos ? s.size() : end) - pos - 1));
                for (char& c : tag) c = char(std::tolower(static_cast<unsigned char>(c)));
                tag = tag.substr(0, tag.find_first_of(" \t\n/", 1));
                pos = end == std::string_view::npos ? s.size() : end + 1;
                if (tag == "details") {
                    flushHtmlText(rest);
                    if (detailsDepth++ == 0) {
                        check = int(doc.checks.size());
                        doc.checks.push_back({"Details"});  // a browser's words when there is no <summary>
                    }
                } else if (tag == "/details") {
                    flushHtmlText(rest);
                    if (detailsDepth == 0) throw std::runtime_error("</details> without <details>");
                    if (--detailsDepth == 0) check = -1;
                } else if (tag == "summary") {
                    flushHtmlText(rest);
                    const size_t close = s.find("</summary>", pos);
                    std::string summary(s.substr(pos, close == std::string_view::npos ? std::string_view::npos : close - pos));
                    if (check >= 0) doc.checks[check].summary = trim(summary);
                    pos = close == std::string_view::npos ? s.size() : close + 10;
                }
            } else {
                rest += s[pos++];
            }
        }
        flushHtmlText(rest);
    }
    void flushHtmlText(std::string& text) {
        text = trim(text);
        if (!text.empty()) {
            if (openText_ < 0) openText(ChapterBlock::Kind::Paragraph, 0);
            addText(text);
            if (inHtml) closeText();
        }
        text.clear();
    }
    static std::string trim(const std::string& s) {
        const size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
        return a == std::string::npos ? "" : s.substr(a, b - a + 1);
    }
};

}  // namespace

ChapterDocument parseChapterDocument(std::string_view markdown) {
    Builder builder;
    MD_PARSER parser{};
    parser.flags = MD_DIALECT_GITHUB;
    parser.enter_block = [](MD_BLOCKTYPE t, void* d, void* u) { return static_cast<Builder*>(u)->enterBlock(t, d); };
    parser.leave_block = [](MD_BLOCKTYPE t, void*, void* u) { return static_cast<Builder*>(u)->leaveBlock(t); };
    parser.enter_span = [](MD_SPANTYPE t, void* d, void* u) { return static_cast<Builder*>(u)->enterSpan(t, d); };
    parser.leave_span = [](MD_SPANTYPE t, void*, void* u) { return static_cast<Builder*>(u)->leaveSpan(t); };
    parser.text = [](MD_TEXTTYPE t, const MD_CHAR* s, MD_SIZE n, void* u) {
        return static_cast<Builder*>(u)->text(t, std::string_view(s, n));
    };
    if (md_parse(markdown.data(), MD_SIZE(markdown.size()), &parser, &builder) != 0)
        throw std::runtime_error("md4c could not parse the Markdown (out of memory?)");
    builder.finish();
    return std::move(builder.doc);
}

std::string headingAnchor(std::string_view headingText) {
    std::string anchor;
    for (unsigned char c : headingText) {
        if (c >= 0x80 || std::isalnum(c) || c == '-' || c == '_') anchor += char(std::tolower(c));
        else if (c == ' ') anchor += '-';
    }
    return anchor;
}

std::string spansText(const MarkdownLine& spans) {
    std::string text;
    for (const MarkdownSpan& s : spans) text += s.text;
    return text;
}

std::string blockText(const ChapterBlock& block) {
    switch (block.kind) {
    case ChapterBlock::Kind::Code: return block.code;
    case ChapterBlock::Kind::Rule: return "";
    case ChapterBlock::Kind::Table: {
        std::string text;
        for (const auto& row : block.rows) {
            for (size_t i = 0; i < row.size(); ++i) text += (i ? " | " : "") + spansText(row[i]);
            text += "\n";
        }
        return text;
    }
    default: return spansText(block.spans);
    }
}

std::string visibleText(const ChapterDocument& document) {
    std::string text;
    int lastCheck = -1;
    for (const ChapterBlock& b : document.blocks) {
        if (b.check >= 0) {
            if (b.check != lastCheck) text += document.checks[b.check].summary + "\n";
            lastCheck = b.check;
            continue;
        }
        text += blockText(b) + "\n";
    }
    return text;
}

}  // namespace llama
