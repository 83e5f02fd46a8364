// GBNF grammars (--grammar): the parser, then the matcher over the input's own first bytes.
#include <algorithm>
#include <memory>
#include <string>

#include "fuzz_input.h"
#include "generate/grammar.h"
#include "generate/grammar_matcher.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] {
        const std::string text(reinterpret_cast<const char*>(data), size);
        auto grammar = std::make_shared<const llama::Grammar>(llama::parseGrammar(text, "fuzz.gbnf"));
        llama::GrammarMatcher matcher(grammar);
        for (size_t i = 0; i < std::min<size_t>(size, 8); ++i) {
            const std::string byte(1, text[i]);
            if (!matcher.allows(byte)) break;
            matcher.accept(byte);
        }
    });
}
