// The viewer's state and arithmetic without a window: colours, slices, axis names, the
// attention-cell explanation, chapters, scripts, exports, breakpoints, the timeline.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "state/attention_explain.h"
#include "state/chapter_text.h"
#include "state/colour_map.h"
#include "state/dim_names.h"
#include "state/script.h"
#include "state/tensor_export.h"
#include "state/tensor_slice.h"
#include "state/timeline.h"
#include "state/view_state.h"

using namespace llama;
using namespace llama::viewer;

namespace {
Tensor f32(Shape shape, std::vector<float> values) {
    Tensor t(std::move(shape), DType::F32);
    std::memcpy(t.mutableData<float>(), values.data(), values.size() * 4);
    return t;
}
std::string tempPath(const std::string& name) { return (std::filesystem::temp_directory_path() / ("viewer_test_" + name)).string(); }
}  // namespace

TEST_CASE("signed data gets a symmetric diverging scale, probabilities a sequential one") {
    std::vector<float> signedValues{-1.0f, 0.5f, 3.0f};
    ColourScale s = scaleFor(signedValues);
    CHECK(s.diverging);
    CHECK(s.lo == -3.0f);
    CHECK(s.hi == 3.0f);
    CHECK(colourFor(0.0f, s) == rampColour(0.5f, true));  // zero is the middle (white)

    std::vector<float> probs{0.0f, 0.25f, 1.0f, -std::numeric_limits<float>::infinity()};
    ColourScale p = scaleFor(probs);
    CHECK_FALSE(p.diverging);
    CHECK(p.lo == 0.0f);
    CHECK(p.hi == 1.0f);
    CHECK(colourFor(probs[3], p) == kNegInfColour);
    CHECK(colourFor(1.0f, p) == Rgb{253, 231, 37});  // viridis' bright end
    CHECK(colourFor(0.0f, p) == Rgb{68, 1, 84});     // and its dark end
}

TEST_CASE("a 2-D slice of a 3-D tensor picks the right elements") {
    std::vector<float> v(2 * 3 * 4);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(i);
    Tensor t = f32({2, 3, 4}, v);
    Slice2D last = extractSlice(t, {1, 2, {1, 0, 0}});  // [head 1, rows, cols]
    CHECK(last.rows == 3);
    CHECK(last.cols == 4);
    CHECK(last.at(2, 3) == 23.0f);
    Slice2D across = extractSlice(t, {0, 1, {0, 0, 2}});  // heads x rows at column 2
    CHECK(across.rows == 2);
    CHECK(across.cols == 3);
    CHECK(across.at(1, 1) == 12 + 4 + 2);
    Slice2D oneRow = extractSlice(f32({3}, {1, 2, 3}), defaultSlice(f32({3}, {1, 2, 3})));
    CHECK(oneRow.rows == 1);
    CHECK(oneRow.cols == 3);
    CHECK_THROWS(extractSlice(Tensor::shapeOnly({2, 2}, DType::F32), {0, 1, {0, 0}}));
}

TEST_CASE("axes are named after the model's hyper-parameters") {
    DimContext c;
    c.args.dim = 256, c.args.n_layers = 8, c.args.n_heads = 8, c.args.n_kv_heads = 2, c.args.vocab_size = 4096;
    c.args.ffn_dim_multiplier = 1.3;
    c.seqLen = 12;
    CHECK(nameDims({8, 12, 12}, c) == std::vector<std::string>{"N_Heads", "seqLen", "seqLen"});
    CHECK(nameDims({12, 2, 32}, c) == std::vector<std::string>{"seqLen", "N_KVHeads", "HeadDim"});
    CHECK(nameDims({12, 1024}, c) == std::vector<std::string>{"seqLen", "FFNHiddenDim"});
    CHECK(nameDims({4096}, c) == std::vector<std::string>{"VocabSize"});
    c.seqLen = 1, c.startPos = 12;
    CHECK(nameDims({8, 1, 13}, c) == std::vector<std::string>{"N_Heads", "seqLen", "startPos+seqLen"});
    c.seqLen = 8, c.startPos = 0;  // a prompt of 8 tokens with 8 heads: both are named
    CHECK(nameDims({8}, c) == std::vector<std::string>{"seqLen or N_Heads"});
    CHECK(nameDims({7}, c) == std::vector<std::string>{"7"});
    // An adapter of rank 2 (the KV heads' count, by chance): its A and B name the rank.
    c.loraRank = 2;
    CHECK(nameDims({256, 2}, c) == std::vector<std::string>{"Dim", "rank"});
    CHECK(nameDims({2, 1024}, c) == std::vector<std::string>{"rank", "FFNHiddenDim"});
}

TEST_CASE("an attention cell is explained as q.k / sqrt(HeadDim) + mask, then the row's softmax") {
    // One head, two queries, HeadDim 4, two positions.
    Tensor xq = f32({1, 2, 4}, {1, 0, 0, 0, /**/ 1, 2, 0, 0});
    Tensor keys = f32({1, 4, 2}, {1, 3, /**/ 0, 1, /**/ 0, 0, /**/ 0, 0});  // k0 = (1,0,0,0), k1 = (3,1,0,0)
    const float inf = std::numeric_limits<float>::infinity();
    Tensor mask = f32({2, 2}, {0, -inf, 0, 0});

    CellExplanation masked = explainAttentionCell(xq, keys, &mask, 0, 0, 1);
    CHECK(masked.dot == Approx(3.0));
    CHECK(std::isinf(masked.score));
    CHECK(masked.probability == 0.0);
    CHECK(masked.visible == 1);

    CellExplanation e = explainAttentionCell(xq, keys, &mask, 0, 1, 1);
    CHECK(e.scale == 2.0f);
    CHECK(e.dot == Approx(1 * 3 + 2 * 1));
    CHECK(e.scaled == Approx(2.5));
    double s0 = 1.0 / 2, s1 = 5.0 / 2;
    CHECK(e.probability == Approx(std::exp(s1) / (std::exp(s0) + std::exp(s1))));
    CHECK(e.rowMax == Approx(s1));
    CHECK_THROWS_AS(explainAttentionCell(xq, keys, &mask, 0, 2, 0), std::out_of_range);
}

TEST_CASE("the chapter panel shows the stage's anchored section, or the whole file") {
    std::string md = "# Forward\nintro\n<!-- stage: mask -->\n## Mask\nthe mask text\n<!-- stage: block -->\n## Block\nblock text\n";
    CHECK(sectionForKey(md, "mask") == "## Mask\nthe mask text\n");
    CHECK(sectionForKey(md, "block") == "## Block\nblock text\n");
    CHECK(sectionForKey(md, "rotary").empty());

    auto dir = std::filesystem::temp_directory_path() / "viewer_test_chapters";
    std::filesystem::create_directories(dir);
    const StageInfo& mask = stageInfo(StageId::Mask);
    std::ofstream(dir / std::string(mask.chapter)) << md;
    ChapterSection s = chapterSection(dir.string(), mask);
    CHECK(s.fileFound);
    CHECK(s.anchorFound);
    CHECK(s.text == "## Mask\nthe mask text\n");
    ChapterSection whole = chapterSection(dir.string(), stageInfo(StageId::AttentionNorm));  // same file, no anchor
    CHECK_FALSE(whole.anchorFound);
    CHECK(whole.text == md);
    ChapterSection missing = chapterSection(dir.string(), stageInfo(StageId::Tokenize));
    CHECK_FALSE(missing.fileFound);
}

TEST_CASE("scripts parse quoted words and report mistakes with their line") {
    auto cmds = parseScript("# a comment\nload\nprompt \"In the \\\"beginning\\\"\"  # trailing\n\nstep-to scores_softmax 1\nquit\n", "t.txt");
    REQUIRE(cmds.size() == 4);
    CHECK(cmds[1].name == "prompt");
    CHECK(cmds[1].args == std::vector<std::string>{"In the \"beginning\""});
    CHECK(cmds[2].line == 5);
    CHECK(cmds[2].args == std::vector<std::string>{"scores_softmax", "1"});
    CHECK_THROWS_WITH(parseScript("load\nfly away\n", "t.txt"), Catch::Contains("t.txt:2") && Catch::Contains("unknown command 'fly'"));
    CHECK_THROWS_WITH(parseScript("head\n", "t.txt"), Catch::Contains("t.txt:1"));
    CHECK_THROWS_WITH(parseScript("prompt \"open\n", "t.txt"), Catch::Contains("unterminated"));
}

TEST_CASE("exports: CSV rows and a .npy file NumPy can read") {
    Tensor t = f32({2, 3}, {1, 2, 3, 4, 5, 6.5f});
    std::string csv = tempPath("slice.csv");
    writeCsv(csv, extractSlice(t, defaultSlice(t)));
    std::ifstream in(csv);
    std::string l1, l2;
    std::getline(in, l1), std::getline(in, l2);
    CHECK(l1 == "1,2,3");
    CHECK(l2 == "4,5,6.5");

    std::string npy = tempPath("t.npy");
    writeNpy(npy, t);
    std::ifstream f(npy, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    REQUIRE(bytes.size() > 10);
    CHECK(bytes.substr(0, 6) == "\x93NUMPY");
    size_t headerLen = uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8;
    CHECK((10 + headerLen) % 64 == 0);
    CHECK(bytes.find("'shape': (2, 3)") != std::string::npos);
    CHECK(bytes.size() == 10 + headerLen + 6 * 4);
    float last;
    std::memcpy(&last, bytes.data() + bytes.size() - 4, 4);
    CHECK(last == 6.5f);
}

TEST_CASE("breakpoints toggle per stage, and per layer separately") {
    std::vector<Breakpoint> b;
    CHECK(toggleBreakpoint(b, StageId::ScoresSoftmax, std::nullopt));
    CHECK(toggleBreakpoint(b, StageId::ScoresSoftmax, 3));
    CHECK(b.size() == 2);
    CHECK(hasBreakpoint(b, StageId::ScoresSoftmax, 3));
    CHECK_FALSE(toggleBreakpoint(b, StageId::ScoresSoftmax, std::nullopt));
    CHECK(b.size() == 1);
    CHECK_FALSE(hasBreakpoint(b, StageId::ScoresSoftmax, std::nullopt));
    CHECK(panelFromKey("kv-cache") == Panel::KvCache);
    CHECK_FALSE(panelFromKey("nope"));
}

TEST_CASE("the key table: F-keys and laptop keys, each chord bound once") {
    CHECK(shortcutText(actionInfo(Action::StepToken)) == "F12, Ctrl+Right");
    CHECK(shortcutText(actionInfo(Action::Step)) == "F10, Right, Space, PageDown");
    CHECK(actionForKey({Key::Right}) == Action::Step);
    CHECK(actionForKey({Key::Space}) == Action::Step);
    CHECK(actionForKey({Key::Right, false, true}) == Action::StepLayer);
    CHECK(actionForKey({Key::Right, true}) == Action::StepToken);
    CHECK(actionForKey({Key::Enter}) == Action::Continue);
    CHECK(actionForKey({Key::R, true}) == Action::Restart);
    CHECK(actionForKey({Key::F5, true}) == Action::Restart);
    CHECK(actionForKey({Key::F5, false, true}) == Action::Stop);
    CHECK_FALSE(actionForKey({Key::R}));  // a plain R is typing
    std::vector<KeyChord> seen;
    for (const auto& a : actionInfos()) {
        CHECK(actionInfo(a.action).action == a.action);
        REQUIRE(!a.keys.empty());
        CHECK(isFunctionKey(a.keys.front().key));  // the debugger's key comes first
        for (const KeyChord& k : a.keys) {
            CHECK(std::find(seen.begin(), seen.end(), k) == seen.end());
            seen.push_back(k);
        }
    }
}

TEST_CASE("the timeline groups records into steps, layers, and the stages around them") {
    std::vector<std::shared_ptr<const StageRecord>> records;
    auto add = [&](StageId s, int layer, int step) {
        auto r = std::make_shared<StageRecord>();
        r->index = int(records.size()), r->stage = s, r->layer = layer, r->step = step;
        records.push_back(r);
    };
    add(StageId::Tokenize, -1, 0);
    add(StageId::Mask, -1, 0);
    add(StageId::BlockForward, 0, 0);
    add(StageId::FfnResidual, 0, 0);
    add(StageId::BlockForward, 1, 0);
    add(StageId::Logits, -1, 0);
    add(StageId::SequenceLoop, -1, 1);
    auto steps = buildTimeline(records);
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].before == std::vector<int>{0, 1});
    REQUIRE(steps[0].layers.size() == 2);
    CHECK(steps[0].layers[0] == std::vector<int>{2, 3});
    CHECK(steps[0].after == std::vector<int>{5});
    CHECK(steps[1].before == std::vector<int>{6});
    CHECK(findRecord(records, 0, 1, StageId::BlockForward)->index == 4);
    CHECK(findRecord(records, 1, -1, StageId::SequenceLoop)->index == 6);
    CHECK(findRecord(records, 0, -1, StageId::SequenceLoop) == nullptr);
    CHECK(findRecord(records, 2, -1, StageId::SequenceLoop) == nullptr);
    // Grown a few records at a time, as while a model computes, it equals the one built whole.
    for (size_t cut : {size_t(0), size_t(3), size_t(5), size_t(6)}) {
        const std::vector<std::shared_ptr<const StageRecord>> first(records.begin(), records.begin() + long(cut));
        auto grown = buildTimeline(first);
        extendTimeline(grown, records, cut);
        REQUIRE(grown.size() == steps.size());
        for (size_t i = 0; i < steps.size(); ++i) {
            CHECK(grown[i].step == steps[i].step);
            CHECK(grown[i].before == steps[i].before);
            CHECK(grown[i].layers == steps[i].layers);
            CHECK(grown[i].after == steps[i].after);
        }
    }
}

TEST_CASE("the action queue: a clicker's taps act in order, each step after the engine was held again") {
    CHECK(keyChordFromName("Ctrl+Right") == KeyChord{Key::Right, true});
    CHECK(keyChordFromName("PageDown") == KeyChord{Key::PageDown});
    CHECK_FALSE(keyChordFromName("Home"));
    ActionQueue q;
    for (int i = 0; i < 3; ++i) q.push(Action::Step);
    // Held (holds 5): the first step acts; the next waits until the engine was held again.
    CHECK(q.next(5, true) == Action::Step);
    CHECK_FALSE(q.next(5, true));
    CHECK_FALSE(q.settled(5, true));
    CHECK(q.next(6, true) == Action::Step);
    CHECK(q.next(7, true) == Action::Step);
    CHECK_FALSE(q.next(8, true));
    CHECK(q.settled(8, true));
    // A run that ended takes the next press at once; Stop drops what was pressed before it acted.
    q.push(Action::Step), q.push(Action::Step);
    CHECK(q.next(8, false) == Action::Step);
    CHECK(q.next(8, false) == Action::Step);
    q.push(Action::Stop), q.push(Action::Step);
    CHECK(q.next(9, true) == Action::Stop);
    CHECK(q.pending() == 0);
}
