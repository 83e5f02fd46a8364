#include "tokenizer/utf8_stream.h"

#include "tokenizer/utf8.h"

namespace llama {

std::string Utf8StreamDecoder::feed(std::string_view bytes) {
    pending_.append(bytes);
    std::string out;
    size_t pos = 0;
    while (pos < pending_.size()) {
        const Utf8Sequence seq = utf8SequenceAt(pending_, pos);
        if (seq.status == Utf8Status::Incomplete) break;  // wait for the next token
        if (seq.status == Utf8Status::Complete) {
            out.append(pending_, pos, seq.length);
        } else {
            out.append(kUtf8Replacement);
        }
        pos += seq.length;
    }
    pending_.erase(0, pos);
    return out;
}

std::string Utf8StreamDecoder::flush() {
    std::string out = pending_.empty() ? std::string() : std::string(kUtf8Replacement);
    pending_.clear();
    return out;
}

}  // namespace llama
