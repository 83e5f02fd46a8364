#include "formats/hf/hf_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <tuple>

#include "io/atomic_output.h"
#include "formats/hf/hf_weights.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/tiktoken_tokenizer.h"

namespace llama {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string hfName(const std::string& meta) {
    static const std::map<std::string, std::string> global = {
        {"tok_embeddings.weight", "model.embed_tokens.weight"}, {"norm.weight", "model.norm.weight"}, {"output.weight", "lm_head.weight"}};
    static const std::map<std::string, std::string> perLayer = {
        {"attention.wq.weight", "self_attn.q_proj.weight"}, {"attention.wk.weight", "self_attn.k_proj.weight"},
        {"attention.wv.weight", "self_attn.v_proj.weight"}, {"attention.wo.weight", "self_attn.o_proj.weight"},
        {"feed_forward.w1.weight", "mlp.gate_proj.weight"}, {"feed_forward.w2.weight", "mlp.down_proj.weight"},
        {"feed_forward.w3.weight", "mlp.up_proj.weight"},   {"attention_norm.weight", "input_layernorm.weight"},
        {"ffn_norm.weight", "post_attention_layernorm.weight"}};
    if (const auto it = global.find(meta); it != global.end()) return it->second;
    const size_t dot = meta.find('.', 7);  // after "layers.N"
    const auto it = meta.rfind("layers.", 0) == 0 && dot != std::string::npos ? perLayer.find(meta.substr(dot + 1)) : perLayer.end();
    if (it == perLayer.end()) throw std::runtime_error("no Hugging Face name for tensor '" + meta + "'");
    return "model.layers." + meta.substr(7, dot - 7) + "." + it->second;
}

json tokenizerJson(const TiktokenTokenizer& tok) {
    const int32_t numBase = tok.numBaseTokens();
    json vocab = json::object();
    std::map<std::string, int32_t> rank;
    for (int32_t id = 0; id < numBase; ++id) {
        const std::string bytes = tok.decodeToken(id);
        vocab[byteLevelEncode(bytes)] = id;
        rank[bytes] = id;
    }
    // Every split of a token into two tokens is a merge. tiktoken's priority for a pair is the
    // merged token's rank, so merges are ordered by it (then by the parts' ranks).
    std::vector<std::tuple<int32_t, int32_t, int32_t>> merges;
    for (const auto& [bytes, r] : rank)
        for (size_t i = 1; i < bytes.size(); ++i) {
            const auto a = rank.find(bytes.substr(0, i)), b = rank.find(bytes.substr(i));
            if (a != rank.end() && b != rank.end()) merges.emplace_back(r, a->second, b->second);
        }
    std::sort(merges.begin(), merges.end());
    json mergeList = json::array();
    for (const auto& [r, a, b] : merges) mergeList.push_back({byteLevelEncode(tok.decodeToken(a)), byteLevelEncode(tok.decodeToken(b))});
    json added = json::array();
    for (int32_t id = numBase; id < tok.vocabSize(); ++id)
        added.push_back({{"id", id}, {"content", tok.decodeToken(id)}, {"single_word", false}, {"lstrip", false}, {"rstrip", false},
                         {"normalized", false}, {"special", true}});
    const json split = {{"type", "Split"}, {"pattern", {{"Regex", std::string(kLlama3SplitPattern)}}}, {"behavior", "Isolated"}, {"invert", false}};
    const json byteLevel = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", false}};
    return {{"version", "1.0"},
            {"added_tokens", added},
            {"normalizer", nullptr},
            {"pre_tokenizer", {{"type", "Sequence"}, {"pretokenizers", {split, byteLevel}}}},
            {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}}},
            {"model",
             {{"type", "BPE"}, {"ignore_merges", true}, {"byte_fallback", false}, {"fuse_unk", false}, {"unk_token", nullptr},
              {"vocab", vocab}, {"merges", mergeList}}}};
}

}  // namespace

void writeSafetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors) {
    json header = json::object();
    uint64_t offset = 0;
    for (const auto& [name, t] : tensors) {
        header[name] = {{"dtype", dtypeName(t.dtype())}, {"shape", t.shape()}, {"data_offsets", {offset, offset + t.byteSize()}}};
        offset += t.byteSize();
    }
    header["__metadata__"] = {{"format", "pt"}};
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');  // so that the data section starts aligned
    AtomicOutputFile file(path);
    std::ofstream& out = file.stream();
    const uint64_t n = text.size();
    for (int i = 0; i < 8; ++i) out.put(char((n >> (8 * i)) & 0xFF));
    out << text;
    for (const auto& [name, t] : tensors) out.write(static_cast<const char*>(t.rawData()), std::streamsize(t.byteSize()));
    file.commit();
}

void exportHf(const Model& m, const std::string& outDir) {
    const auto* tok = dynamic_cast<const TiktokenTokenizer*>(m.tokenizer.get());
    if (!tok) throw std::runtime_error(m.path + ": only models with Llama 3's tiktoken tokenizer can be written as safetensors");
    const ModelArgs& a = m.args;
    std::vector<std::pair<std::string, Tensor>> tensors;
    for (const auto& [name, t] : m.tensors) {
        if (t.dtype() != DType::BF16 && t.dtype() != DType::F32)
            throw std::runtime_error(fmt::format("{}: tensor '{}' is {}; safetensors export takes BF16 or F32 weights", m.path, name,
                                                 dtypeName(t.dtype())));
        Tensor w = t;
        if (name.ends_with("attention.wq.weight")) w = permuteRowsForRotateHalf(t, a.n_heads);
        if (name.ends_with("attention.wk.weight")) w = permuteRowsForRotateHalf(t, a.n_kv_heads);
        tensors.emplace_back(hfName(name), w);
    }
    const fs::path dir(outDir);
    fs::create_directories(dir);
    writeSafetensors((dir / "model.safetensors").string(), tensors);
    json config = {{"architectures", {"LlamaForCausalLM"}}, {"model_type", "llama"}, {"hidden_size", a.dim},
                   {"num_hidden_layers", a.n_layers}, {"num_attention_heads", a.n_heads}, {"num_key_value_heads", a.n_kv_heads},
                   {"intermediate_size", a.ffnHiddenDim()}, {"vocab_size", a.vocab_size}, {"rms_norm_eps", a.norm_eps},
                   {"rope_theta", a.rope_theta}, {"max_position_embeddings", a.max_seq_len}, {"tie_word_embeddings", false},
                   {"torch_dtype", "bfloat16"}, {"rope_scaling", nullptr}};
    if (a.use_scaled_rope)
        config["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", a.rope_scale_factor}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0},
                                  {"original_max_position_embeddings", 8192}};
    writeFileAtomically((dir / "config.json").string(), config.dump(2) + "\n");
    writeFileAtomically((dir / "tokenizer.json").string(), tokenizerJson(*tok).dump());
    const std::string chatTemplate =
        "{{ bos_token }}{% for message in messages %}{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + "
        "message['content'] | trim + '<|eot_id|>' }}{% endfor %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}";
    writeFileAtomically((dir / "tokenizer_config.json").string(),
              json{{"bos_token", "<|begin_of_text|>"}, {"eos_token", "<|end_of_text|>"}, {"chat_template", chatTemplate}}.dump(2) + "\n");
}

}  // namespace llama
