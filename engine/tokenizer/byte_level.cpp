#include "tokenizer/byte_level.h"

#include <array>
#include <unordered_map>

#include "tokenizer/utf8.h"

namespace llama {

namespace {

std::string utf8Of(char32_t c) {
    std::string s;
    if (c < 0x80) {
        s += char(c);
    } else {  // the alphabet stays below U+0800: two bytes
        s += char(0xC0 | (c >> 6));
        s += char(0x80 | (c & 0x3F));
    }
    return s;
}

struct Alphabet {
    std::array<std::string, 256> spelling;
    std::unordered_map<std::string, unsigned char> byteOf;
    Alphabet() {
        char32_t next = 0x100;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            spelling[b] = utf8Of(printable ? char32_t(b) : next++);
            byteOf.emplace(spelling[b], static_cast<unsigned char>(b));
        }
    }
};

const Alphabet& alphabet() {
    static const Alphabet a;
    return a;
}

}  // namespace

std::string byteLevelEncode(std::string_view bytes) {
    std::string out;
    for (char c : bytes) out += alphabet().spelling[static_cast<unsigned char>(c)];
    return out;
}

std::optional<std::string> byteLevelDecode(std::string_view text) {
    std::string out;
    for (size_t pos = 0; pos < text.size();) {
        const Utf8Sequence seq = utf8SequenceAt(text, pos);
        const auto it = alphabet().byteOf.find(std::string(text.substr(pos, seq.length)));
        if (seq.status != Utf8Status::Complete || it == alphabet().byteOf.end()) return std::nullopt;
        out += char(it->second);
        pos += seq.length;
    }
    return out;
}

}  // namespace llama
