#include "inspect_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "model/llama_transformer.h"
#include "model_summary.h"
#include "options/checked_number.h"
#include "session/model_source.h"
#include "tensor/quant_block_explain.h"

namespace llama::cli {

CLI::App* addInspectCommand(CLI::App& app, InspectOptions& o) {
    CLI::App* inspect = app.add_subcommand("inspect", "Describe a model on disk: format, args, special tokens, tensor table");
    inspect->add_option("--model", o.model,
                        "Model directory (Meta's or Hugging Face's layout), .gguf file or llama2.c checkpoint; default: the bundled model");
    auto* block = inspect->add_option("--block", o.block,
                                      "TENSOR ROW: take one quantized block of a GGUF tensor apart, byte by byte "
                                      "(names as the tensor table prints them, rows from 0)");
    inspect->add_option_function<std::string>(
               "--block-index",
               [&o](const std::string& text) {
                   try {
                       o.blockIndex = options::parseInteger(text, {0, INT64_MAX, "a block number from 0"});
                   } catch (const std::invalid_argument& e) {
                       throw CLI::ValidationError("--block-index", e.what());
                   }
               },
               "Which block of the row (default: the first)")
        ->needs(block);
    return inspect;
}

int runInspect(const InspectOptions& o) {
    const Model model = loadModelSource({ModelSource::Kind::Files, o.model});
    if (o.block.first.empty()) printModelInspection(model);
    else printBlockInspection(model, o);
    return 0;
}

void printModelInspection(const Model& m) {
    printModelSummary(m);
    fmt::print("\n");

    // Every special token with its role, except Llama 3's reserved placeholders, which are only counted.
    const Tokenizer& tok = *m.tokenizer;
    const auto stops = tok.stopIds();
    fmt::print("Special tokens (id, text, role):\n");
    int reserved = 0, count = 0;
    for (int32_t id = 0; id < tok.vocabSize(); ++id) {
        const bool bos = id == tok.bosId(), stop = std::find(stops.begin(), stops.end(), id) != stops.end();
        if (!tok.isSpecial(id) && !bos && !stop) continue;
        ++count;
        const std::string text = tok.decodeToken(id);
        if (!bos && !stop && text.find("reserved_special_token") != std::string::npos) {
            ++reserved;
            continue;
        }
        const char* role = bos ? "BOS" : stop ? "stops generation" : "";
        fmt::print("  {:>7}  {}\n", id, *role ? fmt::format("{:<28} {}", text, role) : text);
    }
    fmt::print("  {} special tokens{}\n", count, reserved ? fmt::format(" ({} reserved placeholders not listed)", reserved) : "");
    if (!m.chatTemplate.empty()) fmt::print("Chat template (tokenizer_config.json, {} characters):\n  {}\n", m.chatTemplate.size(), m.chatTemplate);
    fmt::print("\n");

    size_t nameWidth = 4;
    for (const auto& [name, t] : m.tensors) nameWidth = std::max(nameWidth, name.size());
    // Names as the engine calls them (Meta's); a Hugging Face file's names are mapped at load.
    fmt::print("Tensors: {}, {} bytes ({:.1f} MB), dtype {}\n", m.tensors.size(), m.totalBytes(), m.totalBytes() / 1e6, m.weightsDType());
    fmt::print("Computes in: {} (activations, KV cache, scores, logits; --compute-dtype changes it)\n",
               dtypeName(computeDTypeOf(m, {})));
    fmt::print("  {:<{}}  {:<14}  {:<5}  {:>12}\n", "name", nameWidth, "shape", "dtype", "bytes");
    for (const auto& [name, t] : m.tensors)
        fmt::print("  {:<{}}  {:<14}  {:<5}  {:>12}\n", name, nameWidth, shapeToString(t.shape()), dtypeName(t.dtype()),
                   t.byteSize());
}

void printBlockInspection(const Model& m, const InspectOptions& o) {
    // Not a structured binding: clang 14 cannot capture one in the lambda below.
    const std::string& name = o.block.first;
    const int64_t row = o.block.second;
    auto it = std::find_if(m.tensors.begin(), m.tensors.end(), [&](const auto& t) { return t.first == name; });
    if (it == m.tensors.end()) throw std::invalid_argument(fmt::format("{} has no tensor '{}' (inspect --model lists them)", m.path, name));
    const Tensor& t = it->second;
    if (!isQuantized(t.dtype()))
        throw std::invalid_argument(fmt::format("tensor '{}' is {}: not block-quantized, its weights are stored one by one "
                                                "(convert --to gguf-q8_0, gguf-q4_0, gguf-q4_k or gguf-q6_k makes a file that is)",
                                                name, dtypeName(t.dtype())));
    const int64_t rows = t.rank() > 1 ? t.numel() / t.dim(-1) : 1, width = t.dim(-1);
    const int64_t blocksPerRow = width / dtypeBlockSize(t.dtype());
    if (row < 0 || row >= rows) throw std::invalid_argument(fmt::format("tensor '{}' has rows 0..{}, not {}", name, rows - 1, row));
    if (o.blockIndex >= blocksPerRow)
        throw std::invalid_argument(fmt::format("a row of '{}' has blocks 0..{}, not {}", name, blocksPerRow - 1, o.blockIndex));
    const size_t blockBytes = dtypeBlockBytes(t.dtype());
    const size_t at = size_t(row * blocksPerRow + o.blockIndex) * blockBytes;
    const uint8_t* block = t.data<uint8_t>() + at;
    const BlockExplanation e = explainBlock(t.dtype(), block);
    const int64_t first = o.blockIndex * dtypeBlockSize(t.dtype());

    fmt::print("{}: {}, shape {}; a row of {} weights is {} block{} of {} bytes\n", name, dtypeName(t.dtype()), shapeToString(t.shape()),
               width, blocksPerRow, blocksPerRow == 1 ? "" : "s", blockBytes);
    fmt::print("Block {} of row {}: weights {}..{} of the row, bytes {}..{} of the tensor's data\n", o.blockIndex, row, first,
               first + dtypeBlockSize(t.dtype()) - 1, at, at + blockBytes - 1);
    fmt::print("Every weight: {}\n\n", e.formula);
    fmt::print("  {:<9} {:<7} {}\n", "bytes", "field", "what they hold");
    for (const BlockField& f : e.fields)
        fmt::print("  {:<9} {:<7} {}\n", fmt::format("{}..{}", f.offset, f.offset + f.bytes - 1), f.name, f.meaning);
    fmt::print("\nThe block's bytes (hex):\n");
    for (size_t i = 0; i < blockBytes; i += 16) {
        fmt::print("  {:4}: ", i);
        for (size_t j = i; j < std::min(blockBytes, i + 16); ++j) fmt::print("{:02x} ", block[j]);
        fmt::print("\n");
    }
    // The first weights, as w = a * q - b: a and b are what the format's formula makes of the
    // block's scales for the weight's group.
    const size_t shown = std::min<size_t>(e.weights.size(), 32);
    fmt::print("\nThe first {} of its {} weights, each w = a * q - b:\n", shown, e.weights.size());
    fmt::print("  {:>5} {:>5} {:>4} {:>12} {:>12} {:>12}\n", "j", "group", "q", "a", "b", "w");
    for (size_t j = 0; j < shown; ++j) {
        const BlockWeight& w = e.weights[j];
        fmt::print("  {:>5} {:>5} {:>4} {:>12.6g} {:>12.6g} {:>12.6g}\n", first + int64_t(j), w.group, w.q, w.a, w.b, w.value());
    }
}

}  // namespace llama::cli
