// GBNF grammars (--grammar): the parser, then the matcher over the input's own first bytes, one at
// a time. Whatever the grammar says, what the matcher accepts must be text: the start of
// well-formed UTF-8 (shortest forms, no surrogate, nothing past U+10FFFF) without a NUL.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "fuzz_input.h"
#include "generate/grammar.h"
#include "generate/grammar_matcher.h"

namespace {
// RFC 3629's table of well-formed byte sequences, read apart from the matcher's decoder.
bool isTextPrefix(const std::string& bytes) {
    for (size_t i = 0; i < bytes.size();) {
        const uint8_t b = uint8_t(bytes[i]);
        if (b == 0) return false;
        const int length = b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
        if (length == 0) return false;
        const uint8_t secondLow = b == 0xE0 ? 0xA0 : b == 0xF0 ? 0x90 : 0x80, secondHigh = b == 0xED ? 0x9F : b == 0xF4 ? 0x8F : 0xBF;
        for (int k = 1; k < length; ++k) {
            if (i + size_t(k) == bytes.size()) return true;  // a character begun at the end
            const uint8_t c = uint8_t(bytes[i + size_t(k)]);
            if (k == 1 ? (c < secondLow || c > secondHigh) : (c & 0xC0) != 0x80) return false;
        }
        i += size_t(length);
    }
    return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return llama::fuzz::expectCleanErrors([&] {
        const std::string text(reinterpret_cast<const char*>(data), size);
        auto grammar = std::make_shared<const llama::Grammar>(llama::parseGrammar(text, "fuzz.gbnf"));
        llama::GrammarMatcher matcher(grammar);
        std::string accepted;
        for (size_t i = 0; i < std::min<size_t>(size, 64); ++i) {
            const std::string byte(1, text[i]);
            if (!matcher.allows(byte)) continue;
            matcher.accept(byte);
            accepted += byte;
            if (!isTextPrefix(accepted)) {
                std::fprintf(stderr, "the grammar's matcher accepted bytes that are not text\n");
                std::abort();
            }
        }
    });
}
