#pragma once
// Turns generated tokens into printable text as they arrive. A token's bytes can end in
// the middle of a UTF-8 character (an emoji is often 3-4 byte tokens), so the decoder
// holds back an incomplete character until the bytes that finish it arrive. Invalid bytes
// become U+FFFD as soon as they are known to be invalid, so nothing is held forever.
#include <string>
#include <string_view>

namespace llama {

class Utf8StreamDecoder {
public:
    // Appends one token's bytes; returns the text that is complete so far (maybe empty).
    std::string feed(std::string_view bytes);
    // End of stream: a still-incomplete character comes out as one U+FFFD.
    std::string flush();
    // Bytes of an incomplete character waiting for the next token (at most 3).
    bool hasPending() const { return !pending_.empty(); }

private:
    std::string pending_;
};

}  // namespace llama
