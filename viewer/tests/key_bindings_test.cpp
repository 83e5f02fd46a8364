// The viewer's keys: every action reachable, laptop-friendly alternatives beside the F-keys,
// and no alternative firing while the learner types in the prompt box.
#include <catch2/catch.hpp>

#include "state/key_bindings.h"

using namespace llama::viewer;

TEST_CASE("every action has a key and the laptop keys work beside the F-keys, but not while typing") {
    for (const auto& a : actionInfos()) {
        bool bound = false;
        for (const auto& b : keyBindings()) bound = bound || b.action == a.action;
        INFO(a.label);
        CHECK(bound);
    }
    CHECK(actionForKey(Key::Right, false, false, false) == Action::Step);
    CHECK(actionForKey(Key::Space, false, false, false) == Action::Step);
    CHECK(actionForKey(Key::Right, true, false, false) == Action::StepLayer);
    CHECK(actionForKey(Key::Right, false, true, false) == Action::StepToken);
    CHECK(actionForKey(Key::Enter, false, false, false) == Action::Continue);
    CHECK(actionForKey(Key::R, false, true, false) == Action::Restart);
    CHECK(actionForKey(Key::F10, false, false, false) == Action::Step);
    CHECK(actionForKey(Key::F5, true, false, false) == Action::Stop);
    CHECK_FALSE(actionForKey(Key::Space, false, false, true));
    CHECK(actionForKey(Key::F10, false, false, true) == Action::Step);
    CHECK(keyText(keyBindings()[6]) == "Ctrl+Right arrow");
}
