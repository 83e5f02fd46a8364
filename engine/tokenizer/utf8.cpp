#include "tokenizer/utf8.h"

namespace llama {

Utf8Sequence utf8SequenceAt(std::string_view s, size_t pos) {
    const auto b0 = static_cast<unsigned char>(s[pos]);
    if (b0 < 0x80) return {Utf8Status::Complete, 1};
    // Continuation bytes needed, and the allowed range of the first one: the narrower
    // ranges after E0/ED/F0/F4 exclude overlong forms, surrogates and > U+10FFFF.
    size_t need = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        need = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 2;
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 3;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;
    } else {
        return {Utf8Status::Invalid, 1};  // stray continuation byte, C0/C1, F5..FF
    }
    for (size_t k = 1; k <= need; ++k) {
        if (pos + k >= s.size()) return {Utf8Status::Incomplete, k};
        const auto b = static_cast<unsigned char>(s[pos + k]);
        const bool ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
        if (!ok) return {Utf8Status::Invalid, k};  // the bad byte starts the next sequence
    }
    return {Utf8Status::Complete, need + 1};
}

std::optional<size_t> firstInvalidUtf8(std::string_view s) {
    size_t pos = 0;
    while (pos < s.size()) {
        const Utf8Sequence seq = utf8SequenceAt(s, pos);
        if (seq.status != Utf8Status::Complete) return pos;
        pos += seq.length;
    }
    return std::nullopt;
}

}  // namespace llama
