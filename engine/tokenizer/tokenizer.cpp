#include "tokenizer/tokenizer.h"

#include <cstdio>

#include "tokenizer/utf8.h"

namespace llama {

std::string Tokenizer::decodeAfter(int32_t previous, int32_t id) const {
    std::string piece = decodeToken(id);
    if (dropsSpaceAfterBos_ && previous == bos_ && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);
    return piece;
}

std::string Tokenizer::decode(std::span<const int32_t> ids) const {
    std::string out;
    for (int32_t id : ids) out += decodeToken(id);
    return out;
}

std::string Tokenizer::bytesForDisplay(std::string_view bytes) {
    std::string out;
    char buf[8];
    size_t pos = 0;
    while (pos < bytes.size()) {
        const Utf8Sequence seq = utf8SequenceAt(bytes, pos);
        const auto b = static_cast<unsigned char>(bytes[pos]);
        if (seq.status != Utf8Status::Complete) {
            // Part of a character split across tokens: show the bytes themselves.
            for (size_t k = 0; k < seq.length; ++k) {
                std::snprintf(buf, sizeof buf, "<0x%02X>", static_cast<unsigned char>(bytes[pos + k]));
                out += buf;
            }
        } else if (b == '\n') {
            out += "\\n";
        } else if (b == '\r') {
            out += "\\r";
        } else if (b == '\t') {
            out += "\\t";
        } else if (b < 0x20 || b == 0x7F) {
            std::snprintf(buf, sizeof buf, "\\x%02X", b);
            out += buf;
        } else {
            out.append(bytes, pos, seq.length);
        }
        pos += seq.length;
    }
    return out;
}

}  // namespace llama
