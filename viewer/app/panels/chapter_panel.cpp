// The chapter section that explains the current stage, drawn from the ChapterReader's document
// (Markdown parsed by md4c in doccheck/chapter_document): headings, wrapped paragraphs with
// emphasis, inline code and links, lists, tables, code blocks in a monospaced face with a Copy
// button for their commands, figures scaled to the panel's width, and exercise checks folded
// until the reader asks for them.
#include <imgui.h>

#include <fmt/format.h>

#include <algorithm>

#include "fonts.h"
#include "panels.h"
#include "state/chapter_image.h"
#include "state/chapter_reader.h"

namespace llama::viewer {

namespace {

const ImVec4 kHeading(1.0f, 0.85f, 0.45f, 1);
const ImVec4 kLink(0.45f, 0.75f, 1.0f, 1);
const ImVec4 kEmphasis(0.85f, 0.9f, 1.0f, 1);

ImFont* faceFor(const MarkdownSpan& s, bool heading) {
    const TextFaces& f = textFaces();
    ImFont* face = s.code ? f.mono : (s.strong || heading) ? f.bold : s.emphasis ? f.italic : nullptr;
    return face ? face : ImGui::GetFont();
}

// A figure on a line of its own, as wide as the panel allows (never wider than its pixels times
// the UI scale), its alt text on hover; a figure that cannot be shown says why in its place.
void drawFigure(PanelContext& c, const std::string& source, const std::string& alt) {
    const auto image = loadChapterImage(c.chaptersDir, source);
    if (!image->error.empty()) {
        ImGui::TextDisabled("[%s: %s]", alt.c_str(), image->error.c_str());
        return;
    }
    const float width = std::min(ImGui::GetContentRegionAvail().x, float(image->width) * c.requestedUiScale);
    const float height = width * float(image->height) / float(image->width);
    const GLuint texture = c.textures.get("figure:" + image->path, image->width, image->height, image->rgba, true);
    ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(texture)), ImVec2(width, height));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", alt.c_str());
}

// One paragraph of styled spans, word by word: ImGui wraps a single style only, so each word
// goes on the line if it fits before `right`, else on the next. A clicked link's target is
// written to `clicked`. An image's spans (its alt text) become the figure.
void drawSpans(PanelContext& c, const MarkdownLine& spans, bool heading, std::string& clicked) {
    const float left = ImGui::GetCursorScreenPos().x;
    const float right = left + ImGui::GetContentRegionAvail().x;
    bool lineStart = true;
    for (size_t i = 0; i < spans.size(); ++i) {
        const MarkdownSpan& span = spans[i];
        if (span.text == "\n") {
            lineStart = true;
            continue;
        }
        if (!span.image.empty()) {
            std::string alt = span.text;
            while (i + 1 < spans.size() && spans[i + 1].image == span.image) alt += spans[++i].text;
            if (!lineStart) ImGui::NewLine();
            drawFigure(c, span.image, alt);
            lineStart = true;
            continue;
        }
        ImFont* face = faceFor(span, heading);
        ImGui::PushFont(face);
        for (size_t pos = 0; pos < span.text.size();) {
            // A word and the spaces after it.
            size_t end = span.text.find(' ', pos);
            end = end == std::string::npos ? span.text.size() : span.text.find_first_not_of(' ', end);
            if (end == std::string::npos) end = span.text.size();
            const std::string word = span.text.substr(pos, end - pos);
            pos = end;
            const ImVec2 size = ImGui::CalcTextSize(word.c_str());
            if (!lineStart) {
                ImGui::SameLine(0, 0);
                if (ImGui::GetCursorScreenPos().x + size.x > right && ImGui::GetCursorScreenPos().x > left) {
                    ImGui::NewLine();
                    if (word.find_first_not_of(' ') == std::string::npos) continue;  // spaces at a line's start
                }
            }
            lineStart = false;
            const ImVec2 at = ImGui::GetCursorScreenPos();
            if (span.code)
                ImGui::GetWindowDrawList()->AddRectFilled(at, ImVec2(at.x + size.x, at.y + size.y),
                                                          ImGui::GetColorU32(ImGuiCol_FrameBg), 2.0f);
            const ImVec4 colour = !span.link.empty() ? kLink : heading ? kHeading : span.emphasis ? kEmphasis
                                                                                                   : ImGui::GetStyleColorVec4(ImGuiCol_Text);
            ImGui::PushStyleColor(ImGuiCol_Text, colour);
            ImGui::TextUnformatted(word.c_str());
            ImGui::PopStyleColor();
            if (!span.link.empty() && ImGui::IsItemHovered()) {
                ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
                ImGui::GetWindowDrawList()->AddLine(ImVec2(at.x, at.y + size.y), ImVec2(at.x + size.x, at.y + size.y),
                                                    ImGui::GetColorU32(kLink));
                ImGui::SetTooltip("%s", span.link.c_str());
                if (ImGui::IsItemClicked()) clicked = span.link;
            }
        }
        ImGui::PopFont();
    }
    if (lineStart && (spans.empty() || spans.back().image.empty())) ImGui::NewLine();  // an empty paragraph still takes its line
}

// A code block in a framed box that scrolls sideways; console blocks get a Copy button for
// their commands, and the "Try it" blocks (run by the test suite) say so.
void drawCode(const ChapterBlock& b, int index) {
    ImGui::PushID(index);
    if (!b.commands.empty()) {
        std::string commands;
        for (const std::string& c : b.commands) commands += (commands.empty() ? "" : "\n") + c;
        if (ImGui::SmallButton("Copy")) ImGui::SetClipboardText(commands.c_str());
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("Copies the command%s to paste into a terminal in the project's folder", b.commands.size() > 1 ? "s" : "");
        ImGui::SameLine();
        ImGui::TextDisabled(b.tryIt ? "Try it: the test suite runs this and checks what it prints" : "commands");
    }
    ImFont* mono = textFaces().mono ? textFaces().mono : ImGui::GetFont();
    ImGui::PushFont(mono);
    const ImVec2 text = ImGui::CalcTextSize(b.code.c_str());
    const ImGuiStyle& style = ImGui::GetStyle();
    const bool scrolls = text.x + 2 * style.WindowPadding.x > ImGui::GetContentRegionAvail().x;
    const float height = text.y + 2 * style.WindowPadding.y + (scrolls ? style.ScrollbarSize : 0);
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
    ImGui::BeginChild("code", ImVec2(0, height), true, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::TextUnformatted(b.code.c_str());
    ImGui::EndChild();
    ImGui::PopStyleColor();
    ImGui::PopFont();
    ImGui::PopID();
}

void drawTable(PanelContext& c, const ChapterBlock& b, int index, std::string& clicked) {
    const int columns = b.rows.empty() ? 0 : int(b.rows[0].size());
    if (columns == 0 || columns > 64) return;
    ImGui::PushID(index);
    if (ImGui::BeginTable("table", columns, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        for (size_t r = 0; r < b.rows.size(); ++r) {
            ImGui::TableNextRow(r == 0 ? ImGuiTableRowFlags_Headers : 0);
            for (int col = 0; col < columns && col < int(b.rows[r].size()); ++col) {
                ImGui::TableSetColumnIndex(col);
                MarkdownLine cell = b.rows[r][col];
                if (r == 0)
                    for (MarkdownSpan& s : cell) s.strong = true;
                drawSpans(c, cell, false, clicked);
            }
        }
        ImGui::EndTable();
    }
    ImGui::PopID();
}


// The stage's title and where its section is; the way back from a followed link.
void drawChapterHeading(const StageInfo& info, ChapterReader& reader) {
    ImGui::Text("Stage %d: %s", info.number, std::string(info.title).c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("chapters/%s", reader.source().c_str());
    if (reader.showingLink()) {
        ImGui::SameLine();
        if (ImGui::SmallButton("Back to this stage")) reader.backToStage();
    }
    if (!reader.note().empty()) ImGui::TextDisabled("%s", reader.note().c_str());
}

// Any chapter, from a menu; and the stages the chapter shown explains, each a click away (not in
// an exported picture).
void drawChapterChoices(PanelContext& c, ChapterReader& reader) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    if (ImGui::BeginCombo("chapter", reader.file().c_str())) {
        for (const std::string& f : reader.chapterFiles())
            if (ImGui::Selectable(f.c_str(), f == reader.file())) reader.followLink(f);
        ImGui::EndCombo();
    }
    const std::vector<StageId> stages = ChapterReader::stagesIn(reader.file());
    if (!stages.empty()) {
        ImGui::SameLine();
        ImGui::TextDisabled("stages:");
    }
    for (StageId stage : stages) {
        const StageInfo& s = stageInfo(stage);
        const std::string label = fmt::format("{} {}", s.number, s.key);
        ImGui::SameLine();
        if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(label.c_str()).x + ImGui::GetFontSize()) ImGui::NewLine();
        // The stage at the token step shown (its layer, or the first), if the run has reached it.
        const int layer = s.inBlock ? std::max(c.current->layer, 0) : -1;
        const StageRecord* r = findRecord(c.snap.records, c.current->step, layer, stage);
        ImGui::BeginDisabled(r == nullptr);
        if (ImGui::SmallButton(label.c_str()) && r) c.view.selectedRecord = r->index;
        ImGui::EndDisabled();
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s", r ? "show this stage" : "the run has not reached this stage at this token step");
    }
}

// One block of the document, its list marker hanging in the indentation.
void drawBlock(PanelContext& c, ChapterReader& reader, const ChapterBlock& b, int index, std::string& clicked) {
    if (!b.marker.empty()) {
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float width = ImGui::CalcTextSize(b.marker.c_str()).x;
        ImGui::GetWindowDrawList()->AddText(ImVec2(at.x - width - ImGui::GetFontSize() * 0.4f, at.y), ImGui::GetColorU32(ImGuiCol_Text), b.marker.c_str());
    }
    switch (b.kind) {
    case ChapterBlock::Kind::Heading:
        if (index > 0) ImGui::Spacing();
        if (!reader.scrollTarget().empty() && reader.scrollTarget() == b.anchor) ImGui::SetScrollHereY(0), reader.scrolled();
        drawSpans(c, b.spans, true, clicked);
        if (b.level <= 2) ImGui::Separator();
        break;
    case ChapterBlock::Kind::Paragraph: drawSpans(c, b.spans, false, clicked); break;
    case ChapterBlock::Kind::Code: drawCode(b, index); break;
    case ChapterBlock::Kind::Table: drawTable(c, b, index, clicked); break;
    case ChapterBlock::Kind::Rule: ImGui::Separator(); break;
    }
}

// The document, scrolling: blocks far out of sight take their height measured when last drawn;
// an exercise's check is folded behind a button until opened. Returns the link clicked, if any.
std::string drawChapterDocument(PanelContext& c, ChapterReader& reader) {
    if (reader.scrollToTop()) ImGui::SetScrollY(0), reader.scrolled();
    const ChapterDocument& doc = reader.document();
    const float indent = ImGui::GetFontSize() * 1.5f;
    BlockHeights& heights = c.caches.chapterHeights;
    heights.use(reader.source(), doc.blocks.size(), ImGui::GetContentRegionAvail().x, ImGui::GetFontSize());
    // A scroll to a heading needs every block laid out up to it.
    const bool layOutAll = !reader.scrollTarget().empty();
    const float seenTop = ImGui::GetScrollY() - ImGui::GetWindowHeight(), seenBottom = ImGui::GetScrollY() + 2 * ImGui::GetWindowHeight();
    std::string clicked;
    int lastCheck = -1;
    for (int i = 0; i < int(doc.blocks.size()); ++i) {
        const ChapterBlock& b = doc.blocks[i];
        const float top = ImGui::GetCursorPosY(), known = heights.height[size_t(i)];
        if (!layOutAll && known >= 0 && (top + known < seenTop || top > seenBottom)) {
            ImGui::Dummy(ImVec2(0, known - ImGui::GetStyle().ItemSpacing.y));
            lastCheck = b.check;
            continue;
        }
        if (b.depth > 0) ImGui::Indent(indent * float(b.depth));
        if (b.check >= 0 && b.check != lastCheck) {
            ImGui::PushID(b.check);
            const bool open = reader.checkOpen(b.check);
            if (ImGui::Button(open ? "Hide check" : doc.checks[b.check].summary.c_str())) reader.toggleCheck(b.check);
            ImGui::PopID();
        }
        lastCheck = b.check;
        if (b.check >= 0 && !reader.checkOpen(b.check)) {
            heights.height[size_t(i)] = -1;  // folded: next to nothing to draw
            if (b.depth > 0) ImGui::Unindent(indent * float(b.depth));
            continue;
        }
        drawBlock(c, reader, b, i, clicked);
        ImGui::Spacing();
        if (b.depth > 0) ImGui::Unindent(indent * float(b.depth));
        heights.height[size_t(i)] = ImGui::GetCursorPosY() - top;
    }
    return clicked;
}
}  // namespace

void drawChapterPanel(PanelContext& c) {
    if (!c.current) {
        ImGui::TextDisabled("No stage yet.");
        return;
    }
    ChapterReader& reader = c.view.chapter;
    reader.showStage(c.chaptersDir, c.current->info());
    drawChapterHeading(c.current->info(), reader);
    if (!c.exporting) drawChapterChoices(c, reader);
    ImGui::Separator();
    ImGui::BeginChild("chapter");
    const std::string clicked = drawChapterDocument(c, reader);
    ImGui::EndChild();
    // Followed after drawing: the document the loop read changes.
    if (!clicked.empty() && !reader.followLink(clicked)) ImGui::SetClipboardText(clicked.c_str());
}

}  // namespace llama::viewer
