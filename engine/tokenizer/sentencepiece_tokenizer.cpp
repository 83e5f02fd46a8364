#include "tokenizer/sentencepiece_tokenizer.h"

#include <fmt/format.h>
#include <sentencepiece_processor.h>

#include <stdexcept>

#include "tokenizer/utf8.h"

namespace llama {

namespace {
}

SentencePieceTokenizer::SentencePieceTokenizer(const std::string& path)
    : sp_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {
    if (const auto status = sp_->Load(path); !status.ok())
        throw std::runtime_error(fmt::format("{}: not a SentencePiece model this program can read: {}", path, status.ToString()));
    for (int id = 0; id < sp_->GetPieceSize(); ++id) {
        std::string piece = sp_->IdToPiece(id);
        if (sp_->IsByte(id)) {
            bytes_.push_back(std::string(1, char(std::stoi(piece.substr(3, 2), nullptr, 16))));
            continue;
        }
        if (!sp_->IsControl(id) && !sp_->IsUnknown(id))
            for (size_t pos; (pos = piece.find(kSpmSpace)) != std::string::npos;) piece.replace(pos, kSpmSpace.size(), " ");
        bytes_.push_back(std::move(piece));
    }
    if (sp_->bos_id() < 0 || sp_->eos_id() < 0) throw std::runtime_error(path + ": the SentencePiece model has no <s> or </s>");
    bos_ = sp_->bos_id();
    stops_ = {sp_->eos_id()};
}

SentencePieceTokenizer::~SentencePieceTokenizer() = default;

std::vector<int32_t> SentencePieceTokenizer::encode(std::string_view text, bool allowSpecial) const {
    if (const auto bad = firstInvalidUtf8(text))
        throw std::invalid_argument(fmt::format("tokenizer input is not valid UTF-8: byte 0x{:02X} at byte offset {}",
                                                static_cast<unsigned char>(text[*bad]), *bad));
    std::vector<int32_t> ids;
    if (!allowSpecial) {
        encodeOrdinary(text, ids);
        return ids;
    }
    const std::string bos = sp_->IdToPiece(sp_->bos_id()), eos = sp_->IdToPiece(sp_->eos_id());
    size_t done = 0;
    for (size_t i = 0; i < text.size();) {
        const bool isBos = text.compare(i, bos.size(), bos) == 0, isEos = text.compare(i, eos.size(), eos) == 0;
        if (!isBos && !isEos) {
            ++i;
            continue;
        }
        encodeOrdinary(text.substr(done, i - done), ids);
        ids.push_back(isBos ? sp_->bos_id() : sp_->eos_id());
        i += isBos ? bos.size() : eos.size();
        done = i;
    }
    encodeOrdinary(text.substr(done), ids);
    return ids;
}

void SentencePieceTokenizer::encodeOrdinary(std::string_view text, std::vector<int32_t>& out) const {
    if (text.empty()) return;
    std::vector<int> ids;
    if (const auto status = sp_->Encode(text, &ids); !status.ok())
        throw std::runtime_error("SentencePiece could not encode the text: " + status.ToString());
    out.insert(out.end(), ids.begin(), ids.end());
}

std::string SentencePieceTokenizer::decodeToken(int32_t id) const {
    if (id < 0 || id >= vocabSize())
        throw std::out_of_range(fmt::format("token id {} is outside the vocabulary [0, {})", id, vocabSize()));
    return bytes_[id];
}

int32_t SentencePieceTokenizer::vocabSize() const { return int32_t(bytes_.size()); }

bool SentencePieceTokenizer::isSpecial(int32_t id) const {
    return id >= 0 && id < vocabSize() && (sp_->IsControl(id) || sp_->IsUnknown(id));
}

std::optional<int32_t> SentencePieceTokenizer::specialId(std::string_view name) const {
    const int id = sp_->PieceToId(name);
    if (!isSpecial(id) || sp_->IdToPiece(id) != name) return std::nullopt;
    return id;
}

std::string SentencePieceTokenizer::serializedModel() const { return sp_->serialized_model_proto(); }

}  // namespace llama
