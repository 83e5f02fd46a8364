#pragma once
// UTF-8 validation shared by the tokenizer (rejects bad input with a byte offset) and the
// streaming decoder (holds back incomplete characters, replaces invalid bytes).
// Strict UTF-8: no overlong forms, no surrogates (U+D800..DFFF), nothing above U+10FFFF.
#include <cstddef>
#include <optional>
#include <string_view>

namespace llama {

// U+FFFD REPLACEMENT CHARACTER, encoded.
inline constexpr std::string_view kUtf8Replacement = "\xEF\xBF\xBD";
// U+2581 LOWER ONE EIGHTH BLOCK "▁", encoded: SentencePiece vocabularies spell a space with it.
inline constexpr std::string_view kSpmSpace = "\xE2\x96\x81";

enum class Utf8Status { Complete, Incomplete, Invalid };

struct Utf8Sequence {
    Utf8Status status;
    // Complete: bytes of the character. Incomplete: bytes present (a valid prefix that ran
    // into the end of the input). Invalid: bytes to replace by one U+FFFD (the "maximal
    // subpart" of Unicode's recommended practice, at least 1).
    size_t length;
};

// The character starting at s[pos] (pos < s.size()).
Utf8Sequence utf8SequenceAt(std::string_view s, size_t pos);

// Byte offset of the first byte that is not part of a complete, valid character.
std::optional<size_t> firstInvalidUtf8(std::string_view s);

}  // namespace llama
