// The What-if editor (state/what_if_editor.h) edits the settings it is given: the what-ifs the
// command line or a script set survive the section being drawn, every skipped layer and ablated
// head is kept, and only an add or a remove changes them.
#include <catch2/catch.hpp>

#include <CLI/CLI.hpp>

#include "options/checked_option.h"
#include "options/run_options.h"
#include "state/engine_session.h"
#include "state/script.h"
#include "state/script_state_commands.h"
#include "state/what_if_editor.h"

using namespace llama;
using namespace llama::viewer;

namespace {
// The viewer's settings as its command line leaves them (viewer/app/main.cpp adds the same options).
RunSettings fromCommandLine(std::vector<std::string> args) {
    RunSettings settings;
    CLI::App app;
    options::addWhatIfOptions(app, settings.whatIf);
    args.insert(args.begin(), "llama-viewer");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    REQUIRE_FALSE(options::parseCommandLine(app, int(argv.size()), argv.data()));
    return settings;
}

// What drawing the section does to the settings in a frame without a click.
void drawnWithoutClicks(RunSettings& settings, ViewState& view, int layers, int heads) {
    applyWhatIfEdit(settings.whatIf, view.whatIfDraft, WhatIfEdit{}, layers, heads);
}
}  // namespace

TEST_CASE("what-if editor: the command line's skipped layers and ablated heads survive the section being drawn") {
    RunSettings settings = fromCommandLine({"--skip-layer", "2", "--skip-layer", "4", "--ablate-head", "1:3", "--ablate-head", "2:1"});
    const WhatIf before = settings.whatIf;
    REQUIRE(before.skipLayers == std::set<int>{1, 3});
    REQUIRE(before.ablateHeads == std::set<std::pair<int, int>>{{0, 2}, {1, 0}});
    ViewState view;
    for (int frame = 0; frame < 3; ++frame) drawnWithoutClicks(settings, view, 6, 4);
    CHECK(settings.whatIf.skipLayers == before.skipLayers);
    CHECK(settings.whatIf.ablateHeads == before.ablateHeads);
    CHECK(settings.whatIf.describe() == before.describe());
}

TEST_CASE("what-if editor: a script's what-ifs survive the section being drawn") {
    RunSettings settings;
    ViewState view;
    for (const ScriptCommand& c : parseScript("skip-layer 3\nablate-head 2:2\n", "test.script")) applyStateCommand(c, settings, view);
    drawnWithoutClicks(settings, view, 6, 4);
    CHECK(settings.whatIf.skipLayers == std::set<int>{2});
    CHECK(settings.whatIf.ablateHeads == std::set<std::pair<int, int>>{{1, 1}});
}

TEST_CASE("what-if editor: entries are added beside the others and removed one at a time") {
    RunSettings settings = fromCommandLine({"--skip-layer", "2"});
    ViewState view;
    view.whatIfDraft.skipLayer = 5;
    applyWhatIfEdit(settings.whatIf, view.whatIfDraft, {WhatIfEdit::Kind::AddSkip}, 6, 4);
    CHECK(settings.whatIf.skipLayers == std::set<int>{1, 4});
    view.whatIfDraft.ablateLayer = 3, view.whatIfDraft.ablateHead = 4;
    applyWhatIfEdit(settings.whatIf, view.whatIfDraft, {WhatIfEdit::Kind::AddAblation}, 6, 4);
    view.whatIfDraft.ablateLayer = 1, view.whatIfDraft.ablateHead = 1;
    applyWhatIfEdit(settings.whatIf, view.whatIfDraft, {WhatIfEdit::Kind::AddAblation}, 6, 4);
    CHECK(settings.whatIf.ablateHeads == std::set<std::pair<int, int>>{{0, 0}, {2, 3}});
    applyWhatIfEdit(settings.whatIf, view.whatIfDraft, {WhatIfEdit::Kind::RemoveSkip, 1}, 6, 4);
    applyWhatIfEdit(settings.whatIf, view.whatIfDraft, {WhatIfEdit::Kind::RemoveAblation, 2, 3}, 6, 4);
    CHECK(settings.whatIf.skipLayers == std::set<int>{4});
    CHECK(settings.whatIf.ablateHeads == std::set<std::pair<int, int>>{{0, 0}});
}

TEST_CASE("what-if editor: the numbers typed stay within the model's layers and heads") {
    WhatIf w;
    WhatIfDraft draft{.skipLayer = 40, .ablateLayer = 0, .ablateHead = 99};
    applyWhatIfEdit(w, draft, {WhatIfEdit::Kind::AddSkip}, 6, 4);
    applyWhatIfEdit(w, draft, {WhatIfEdit::Kind::AddAblation}, 6, 4);
    CHECK(w.skipLayers == std::set<int>{5});
    CHECK(w.ablateHeads == std::set<std::pair<int, int>>{{0, 3}});
    CHECK_NOTHROW(w.validate(6, 4));
}

TEST_CASE("what-if editor: a control vector file loads at the slider's scale, a refused one leaves the settings alone", "[whatif]") {
    RunSettings settings;
    ViewState view;
    view.whatIfDraft.controlVectorPath = std::string(TEST_FIXTURES_DIR) + "/steer/joy.gguf";
    view.whatIfDraft.controlVectorScale = 2.0f;
    REQUIRE(applyControlVectorDraft(settings.whatIf, view.whatIfDraft));
    REQUIRE(settings.whatIf.steering);
    CHECK(settings.whatIf.describe() == "--control-vector " + view.whatIfDraft.controlVectorPath + ":2");
    CHECK(settings.whatIf.steering->directions.size() == 7);
    const auto loaded = settings.whatIf.steering;
    view.whatIfDraft.controlVectorPath = std::string(TEST_FIXTURES_DIR) + "/steer/words.gbnf";
    CHECK_FALSE(applyControlVectorDraft(settings.whatIf, view.whatIfDraft));
    CHECK_THAT(view.whatIfDraft.error, Catch::Contains("words.gbnf"));
    CHECK(settings.whatIf.steering == loaded);
    view.whatIfDraft.controlVectorPath.clear();
    REQUIRE(applyControlVectorDraft(settings.whatIf, view.whatIfDraft));
    CHECK_FALSE(settings.whatIf.steering);
}

TEST_CASE("what-if editor: a grammar is parsed for the next run, with its line and column when refused", "[whatif]") {
    RunSettings settings;
    ViewState view;
    view.whatIfDraft.grammarText = "root ::= [0-9]+";
    REQUIRE(applyGrammarDraft(settings, view.whatIfDraft));
    REQUIRE(settings.grammar);
    view.whatIfDraft.grammarText = "root ::= digit";
    CHECK_FALSE(applyGrammarDraft(settings, view.whatIfDraft));
    CHECK(view.whatIfDraft.error == "grammar:1:10: undefined rule 'digit'");
    CHECK(settings.grammar);  // the last good one stays
    view.whatIfDraft.grammarText = "  \n";
    REQUIRE(applyGrammarDraft(settings, view.whatIfDraft));
    CHECK_FALSE(settings.grammar);
}
