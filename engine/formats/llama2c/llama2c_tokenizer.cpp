#include "formats/llama2c/llama2c_tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "io/atomic_output.h"
#include "io/mapped_file.h"
#include "tokenizer/utf8.h"

namespace llama {

namespace {


// tokenizer.py's spellings of BOS and EOS, and the names the engine gives them.
constexpr std::string_view kBosStored = "\n<s>\n", kEosStored = "\n</s>\n";

std::string replaceAll(std::string_view s, std::string_view from, std::string_view to) {
    std::string out;
    for (size_t i = 0; i < s.size();) {
        if (s.compare(i, from.size(), from) == 0) {
            out += to;
            i += from.size();
        } else {
            out += s[i++];
        }
    }
    return out;
}

bool isBytePiece(const std::string& p) {
    return p.size() == 6 && p.compare(0, 3, "<0x") == 0 && p[5] == '>' && std::isxdigit(static_cast<unsigned char>(p[3])) &&
           std::isxdigit(static_cast<unsigned char>(p[4]));
}

}  // namespace

std::shared_ptr<const SpmScoresTokenizer> loadLlama2cTokenizer(const std::string& path, int32_t vocabSize) {
    const MappedFile file(path);
    const std::span<const std::byte> bytes = file.bytes();
    size_t at = 0;
    auto fail = [&](const std::string& what) { throw std::runtime_error(fmt::format("{}: {}", path, what)); };
    auto read32 = [&](const char* what, int32_t id) {
        if (bytes.size() - at < 4)
            fail(id < 0 ? fmt::format("{} bytes: expected an int32 max_token_length first", bytes.size())
                        : fmt::format("token {} of {}: the file ends at byte {} where its {} should be", id, vocabSize, bytes.size(), what));
        uint32_t v;
        std::memcpy(&v, bytes.data() + at, 4);
        at += 4;
        return v;
    };
    const int32_t maxLength = int32_t(read32("max_token_length", -1));
    if (maxLength <= 0) fail(fmt::format("max_token_length is {}: expected a positive length", maxLength));
    std::vector<std::string> pieces;
    std::vector<float> scores;
    std::vector<int32_t> types;
    int32_t bos = -1, eos = -1;
    for (int32_t id = 0; id < vocabSize; ++id) {
        const size_t tokenOffset = at;
        float score;
        const uint32_t scoreBits = read32("score", id);
        std::memcpy(&score, &scoreBits, 4);
        const int32_t length = int32_t(read32("length", id));
        // An empty piece would be a token that encodes nothing (and matches everywhere).
        if (length < 1 || length > maxLength)
            fail(fmt::format("token {} at byte {}: length {} is not between 1 and max_token_length {}", id, tokenOffset, length, maxLength));
        if (bytes.size() - at < size_t(length))
            fail(fmt::format("token {} at byte {}: {} bytes of text, but the file ends at byte {}", id, tokenOffset, length, bytes.size()));
        if (!std::isfinite(score)) fail(fmt::format("token {} at byte {}: score {} is not a finite number", id, tokenOffset, score));
        const std::string stored(reinterpret_cast<const char*>(bytes.data() + at), size_t(length));
        at += size_t(length);
        if (stored == kBosStored || stored == kEosStored) {
            (stored == kBosStored ? bos : eos) = id;
            pieces.push_back(stored == kBosStored ? "<s>" : "</s>");
            types.push_back(SpmScoresTokenizer::Control);
        } else {
            pieces.push_back(replaceAll(stored, " ", kSpmSpace));
            types.push_back(stored == "<unk>"        ? SpmScoresTokenizer::Unknown
                            : isBytePiece(stored)    ? SpmScoresTokenizer::Byte
                                                     : SpmScoresTokenizer::Normal);
        }
        scores.push_back(score);
    }
    if (at != bytes.size())
        fail(fmt::format("{} bytes left after token {}: the file holds more tokens than the checkpoint's vocab_size {}", bytes.size() - at,
                         vocabSize - 1, vocabSize));
    // run.c starts every sequence with id 1 and llama2.c's vocabularies put BOS there.
    if (bos < 0) bos = vocabSize > 1 ? 1 : 0;
    // run.c ends a sequence when it samples BOS ("the BOS token delimits sequences"); EOS too.
    std::vector<int32_t> stops{bos};
    if (eos >= 0 && eos != bos) stops.push_back(eos);
    try {
        auto tokenizer = std::make_shared<SpmScoresTokenizer>(std::move(pieces), std::move(scores), std::move(types), bos, std::move(stops), true);
        tokenizer->dropSpaceAfterBos();
        return tokenizer;
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
}

void writeLlama2cTokenizer(const Tokenizer& tokenizer, const std::string& path) {
    const auto* spm = dynamic_cast<const SpmScoresTokenizer*>(&tokenizer);
    if (!spm)
        throw std::invalid_argument(
            "llama2.c's tokenizer.bin holds pieces and scores only, and run.c encodes by merging the best-scoring pair: this model's "
            "vocabulary is a BPE with a merge list (Llama 3's tiktoken or a tokenizer.json), which run.c cannot encode with. Only "
            "SentencePiece-style vocabularies with scores fit (Llama 2's, TinyStories', a GGUF 'llama' vocabulary)");
    if (!spm->addSpacePrefix())
        throw std::invalid_argument("this vocabulary does not put a space before the text (add_space_prefix false); run.c always does");
    std::string out;
    auto put32 = [&](const void* v) { out.append(static_cast<const char*>(v), 4); };
    std::vector<std::string> stored;
    int32_t maxLength = 1;
    // EOS: the first stop id that is not BOS (a llama2.c vocabulary also stops at BOS).
    int32_t eos = -1;
    for (int32_t s : spm->stopIds())
        if (s != spm->bosId() && eos < 0) eos = s;
    for (int32_t id = 0; id < spm->vocabSize(); ++id) {
        const std::string& piece = spm->pieces()[size_t(id)];
        std::string s = id == spm->bosId() ? std::string(kBosStored) : id == eos ? std::string(kEosStored) : replaceAll(piece, kSpmSpace, " ");
        maxLength = std::max(maxLength, int32_t(s.size()));
        stored.push_back(std::move(s));
    }
    put32(&maxLength);
    for (int32_t id = 0; id < spm->vocabSize(); ++id) {
        const float score = spm->scores()[size_t(id)];
        const int32_t length = int32_t(stored[size_t(id)].size());
        put32(&score);
        put32(&length);
        out += stored[size_t(id)];
    }
    AtomicOutputFile file(path);
    file.stream().write(out.data(), std::streamsize(out.size()));
    file.commit();
}

}  // namespace llama
