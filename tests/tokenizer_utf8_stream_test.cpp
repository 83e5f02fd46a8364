// Printing generated tokens: characters split across tokens come out whole, invalid bytes
// come out as U+FFFD (never held back forever), flush() ends the stream.
#include <catch2/catch.hpp>

#include "tokenizer/utf8.h"
#include "tokenizer/utf8_stream.h"

using llama::Utf8StreamDecoder;

namespace {
const std::string kFFFD = "\xEF\xBF\xBD";
}

TEST_CASE("utf8 stream: an emoji split over tokens prints whole", "[tokenizer]") {
    // 🙂 is F0 9F 99 82; Llama 3 emits it as two tokens (F0 9F 99 | 82), here byte by byte.
    Utf8StreamDecoder dec;
    CHECK(dec.feed("Hi ") == "Hi ");
    CHECK(dec.feed("\xF0") == "");
    CHECK(dec.feed("\x9F\x99") == "");
    CHECK(dec.hasPending());
    CHECK(dec.feed("\x82!") == "\xF0\x9F\x99\x82!");
    CHECK_FALSE(dec.hasPending());
    CHECK(dec.flush() == "");
    // A token that finishes one character and starts the next.
    CHECK(dec.feed("caf\xC3") == "caf");
    CHECK(dec.feed("\xA9\xE4\xBD") == "\xC3\xA9");
    CHECK(dec.feed("\xA0") == "\xE4\xBD\xA0");
}

TEST_CASE("utf8 stream: invalid bytes become U+FFFD as soon as they are known to be invalid", "[tokenizer]") {
    Utf8StreamDecoder dec;
    CHECK(dec.feed("a\xFF" "b") == "a" + kFFFD + "b");  // never valid
    CHECK(dec.feed("\x80") == kFFFD);                   // stray continuation byte
    CHECK(dec.feed("\xE2\x82") == "");                  // could still become €
    CHECK(dec.feed("x") == kFFFD + "x");                // ...but did not: one U+FFFD for the prefix
    CHECK(dec.feed("\xC0\xAF") == kFFFD + kFFFD);       // overlong: each byte replaced
    CHECK(dec.feed("\xED\xA0\x80") == kFFFD + kFFFD + kFFFD);  // surrogate
    CHECK(dec.feed("\xF0\x9F") == "");
    CHECK(dec.feed("\xF0\x9F\x99\x82") == kFFFD + "\xF0\x9F\x99\x82");  // new lead byte cuts the old one off
    CHECK_FALSE(dec.hasPending());
}

TEST_CASE("utf8 stream: flush ends an incomplete character with U+FFFD", "[tokenizer]") {
    Utf8StreamDecoder dec;
    CHECK(dec.feed("ok\xE4\xBD") == "ok");
    CHECK(dec.flush() == kFFFD);
    CHECK(dec.flush() == "");
    CHECK(dec.feed("again") == "again");  // usable after a flush
}

TEST_CASE("utf8: firstInvalidUtf8", "[tokenizer]") {
    CHECK_FALSE(llama::firstInvalidUtf8("plain, caf\xC3\xA9, \xF0\x9F\x99\x82").has_value());
    CHECK(llama::firstInvalidUtf8("ab\xC3") == 2u);
    CHECK(llama::firstInvalidUtf8("\xF5\x80\x80\x80") == 0u);
    CHECK(llama::firstInvalidUtf8("\xEF\xBF\xBD\xEF\xBF\xBF") == std::nullopt);  // U+FFFD, U+FFFF are valid
}
