#include "formats/meta/meta_export.h"

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "formats/meta/params_json.h"
#include "formats/meta/torch_save.h"
#include "io/atomic_output.h"
#include "tokenizer/sentencepiece_tokenizer.h"
#include "tokenizer/tiktoken_file.h"
#include "tokenizer/tiktoken_tokenizer.h"

namespace llama {

namespace fs = std::filesystem;

namespace {

// The bytes of tokenizer.model, which loadMetaTokenizer reads back to the same tokenizer.
std::string tokenizerModel(const Model& m) {
    if (const auto* spm = dynamic_cast<const SentencePieceTokenizer*>(m.tokenizer.get())) return spm->serializedModel();
    const auto* tok = dynamic_cast<const TiktokenTokenizer*>(m.tokenizer.get());
    if (!tok)
        throw std::runtime_error(m.path + ": only Llama 3's tiktoken tokenizer or Llama 2's SentencePiece tokenizer.model can be written in "
                                 "Meta's layout; this model's tokenizer is neither");
    constexpr int32_t kSpecials = 256;  // what a reader of tokenizer.model adds (tiktoken_tokenizer.h)
    if (tok->vocabSize() - tok->numBaseTokens() != kSpecials)
        throw std::runtime_error(m.path + ": the tokenizer has " + std::to_string(tok->vocabSize() - tok->numBaseTokens()) +
                                 " special tokens; Meta's layout gives a tiktoken tokenizer.model exactly " + std::to_string(kSpecials));
    std::vector<std::string> ranked;
    for (int32_t id = 0; id < tok->numBaseTokens(); ++id) ranked.push_back(tok->decodeToken(id));
    std::ostringstream out;
    writeTiktokenRanks(out, ranked);
    return out.str();
}

}  // namespace

void exportMeta(const Model& m, DType dtype, const std::string& outDir) {
    // Everything that can refuse the model runs before the first file is written.
    const std::string params = paramsJsonText(m.args, m.path);
    const std::string tokenizer = tokenizerModel(m);
    std::vector<NamedTensor> tensors;
    for (const auto& [name, t] : m.tensors) tensors.push_back({name, t});
    const fs::path dir(outDir);
    fs::create_directories(dir);
    writeTorchSave((dir / "consolidated.00.pth").string(), tensors, dtype);
    writeFileAtomically((dir / "params.json").string(), params);
    writeFileAtomically((dir / "tokenizer.model").string(), tokenizer);
}

}  // namespace llama
