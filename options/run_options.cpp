#include "run_options.h"

#include <fmt/format.h>

#include <limits>

#include "checked_option.h"
#include "formats/gguf/gguf_control_vector.h"
#include "generate/json_grammar.h"
#include "io/input_file.h"
#include "ml/thread_pool.h"

namespace llama::options {

namespace ranges {
IntegerRange maxTokens() { return {0, ModelArgs::kMaxPositions, fmt::format("a token count from 0 to {}", ModelArgs::kMaxPositions)}; }
RealRange temperature() { return {0, 100, false, "a number from 0 (greedy) to 100"}; }
IntegerRange topK() { return {0, ModelArgs::kMaxVocab, fmt::format("a token count from 0 (all) to {}", ModelArgs::kMaxVocab)}; }
RealRange topP() { return {0, 1, true, "a probability above 0 and at most 1"}; }
RealRange minP() { return {0, 1, false, "a fraction from 0 (off) to 1"}; }
RealRange repeatPenalty() { return {0, 10, true, "a number above 0 and at most 10 (1 is off)"}; }
IntegerRange repeatLastN() { return {-1, 1 << 30, "a token count from -1 (all) to 1073741824"}; }
RealRange frequencyPenalty() { return {-10, 10, false, "a number from -10 to 10 (0 is off)"}; }
RealRange ropeTheta() { return {1, 1e12, true, "a base frequency above 1 and at most 1e12"}; }
RealRange mirostatTau() { return {0, 100, true, "a surprise in bits above 0 and at most 100"}; }
RealRange mirostatEta() { return {0, 1, true, "a learning rate above 0 and at most 1"}; }
}  // namespace ranges

ModelSource ModelChoice::source(uint64_t seed) const {
    if (!synthetic.empty()) return {ModelSource::Kind::Synthetic, synthetic, seed, tokenizer, lora};
    return {ModelSource::Kind::Files, model, seed, tokenizer, lora};
}

void addModelOptions(CLI::App& app, ModelChoice& c, uint64_t& seed) {
    auto* model = app.add_option("--model", c.model,
                                 "Model directory in Meta's layout (consolidated.00.pth, params.json, tokenizer.model) or "
                                 "Hugging Face's (config.json, *.safetensors, tokenizer.json), a .gguf file or a llama2.c checkpoint "
                                 "(model.bin, with tokenizer.bin); default: the bundled model");
    app.add_option("--synthetic", c.synthetic, "Seeded random-weight model: tiny, tinyllama-1.1b, llama3.1-8b, llama2-7b")
        ->excludes(model);
    app.add_option("--tokenizer", c.tokenizer,
                   "A llama2.c checkpoint's tokenizer.bin (default: the one beside it), or a --synthetic preset's tokenizer: a tiktoken "
                   "or SentencePiece tokenizer.model, or a tokenizer.json, of the preset's vocabulary size (default: byte by byte)");
    addLoraOption(app, c.lora);
    addUnsigned(app, "--seed", seed, ranges::seed, "Random seed for sampling and synthetic weights");
}

void addLoraOption(CLI::App& app, std::vector<LoraFile>& files) {
    app.add_option_function<std::vector<std::string>>(
           "--lora",
           [&files](const std::vector<std::string>& items) {
               files.clear();
               for (const auto& item : items) try {
                       files.push_back(parseLoraArgument(item));
                   } catch (const std::invalid_argument& e) {
                       throw CLI::ValidationError("--lora", e.what());
                   }
           },
           "Add a LoRA adapter (llama.cpp's GGUF layout) to the model's matrices, its product times SCALE * alpha / rank (SCALE default 1); "
           "repeatable: the adapters' products add up")
        ->type_name("FILE[:SCALE]");
}

void addGenerationOptions(CLI::App& app, GenerationSettings& g) {
    app.add_option("-p,--prompt", g.prompt, "Prompt text")->default_str(kDefaultPrompt);
    app.add_option("--system", g.system, "System prompt (chat mode); without --chat, text before the prompt");
    auto* chat = app.add_flag_callback("--chat", [&g] { g.mode = PromptMode::Chat; },
                                       "Use the model's instruct chat template (Llama 3's, or Llama 2's [INST])");
    app.add_flag_callback("--completion", [&g] { g.mode = PromptMode::Completion; }, "Raw text continuation (default)")->excludes(chat);
    app.add_flag("--allow-special", g.allowSpecial,
                 "In --chat mode, special-token text in --prompt and --system becomes control tokens (completion prompts always do)")
        ->needs(chat);
    addSamplingOptions(app, g);
    addGrammarOptions(app, g);
}

void addSamplingOptions(CLI::App& app, GenerationSettings& g) {
    SamplingSettings& s = g.sampling;
    addInteger(app, "-n,--max-tokens", g.maxTokens, ranges::maxTokens(), "Tokens to generate");
    addReal(app, "--temperature", s.temperature, ranges::temperature(), "0 = greedy (default)");
    addInteger(app, "--top-k", s.topK, ranges::topK(),
               "Keep the k most likely tokens (0 = all)");
    addReal(app, "--top-p", s.topP, ranges::topP(), "Nucleus sampling threshold in (0, 1]");
    addReal(app, "--min-p", s.minP, ranges::minP(),
            "Keep tokens at least this fraction as likely as the most likely, as llama.cpp (0 = off)");
    // llama.cpp's repetition penalties (generate/sampler.h).
    addReal(app, "--repeat-penalty", s.repeatPenalty, ranges::repeatPenalty(),
            "Divide the positive logits of tokens seen in the window by this (multiply the negative ones); 1 = off (default)");
    addInteger(app, "--repeat-last-n", s.repeatLastN, ranges::repeatLastN(),
               "The penalties' window: the last N tokens, prompt included (default 64; 0 = off, -1 = all)");
    addReal(app, "--frequency-penalty", s.frequencyPenalty, ranges::frequencyPenalty(),
            "Subtract this from a token's logit per occurrence in the window; 0 = off");
    addReal(app, "--presence-penalty", s.presencePenalty, ranges::frequencyPenalty(),
            "Subtract this from the logit of every token present in the window; 0 = off");
    // llama.cpp's mirostat samplers (generate/mirostat.h).
    auto* mirostat = addInteger(app, "--mirostat", s.mirostat, {0, 2, "0 (off), 1 or 2"},
               "Mirostat sampling, version 1 or 2, as llama.cpp (needs --temperature; replaces top-k, top-p, min-p and the penalties)");
    addReal(app, "--mirostat-tau", s.mirostatTau, ranges::mirostatTau(), "Mirostat's target surprise in bits (default 5)")->needs(mirostat);
    addReal(app, "--mirostat-eta", s.mirostatEta, ranges::mirostatEta(), "Mirostat's learning rate (default 0.1)")->needs(mirostat);
}

void addGrammarOptions(CLI::App& app, GenerationSettings& g) {
    // Parsed here, so a bad grammar is refused with its line and column before anything runs.
    auto use = [&g](const std::string& option, const std::string& text, const std::string& source) {
        try {
            g.grammar = std::make_shared<const Grammar>(parseGrammar(text, source));
            g.grammarSource = source;
        } catch (const std::invalid_argument& e) {
            throw CLI::ValidationError(option, e.what());
        }
    };
    auto* file = app.add_option_function<std::string>(
                        "--grammar",
                        [use](const std::string& path) {
                            std::string text;
                            try {
                                text = readInputFile(path, "grammar");
                            } catch (const std::exception& e) {
                                throw CLI::ValidationError("--grammar", e.what());
                            }
                            use("--grammar", text, path);
                        },
                        "Constrain the generated text to a GBNF grammar in FILE (llama.cpp's --grammar-file)")
                     ->type_name("FILE");
    auto* text = app.add_option_function<std::string>(
                        "--grammar-text", [use](const std::string& t) { use("--grammar-text", t, "grammar"); },
                        "Constrain the generated text to this GBNF grammar (llama.cpp's --grammar)")
                     ->type_name("GBNF")
                     ->excludes(file);
    app.add_flag_callback("--json", [use] { use("--json", kJsonGrammar, "json"); }, "Constrain the generated text to a JSON object (a built-in grammar)")
        ->excludes(file)
        ->excludes(text);
}

void addWhatIfOptions(CLI::App& app, WhatIf& w) {
    const char* group = "What-if experiments (recorded in the debug log, the trace and the viewer)";
    app.add_flag("--no-mask", w.noMask, "Prefill without the causal mask: every token also sees the tokens after it")->group(group);
    app.add_flag("--no-kv-cache", w.noKvCache,
                 "Recompute the whole sequence at every step instead of reading the KV cache; prints both timings and "
                 "whether the logits are equal")
        ->group(group);
    app.add_option_function<std::string>(
           "--rope-theta",
           [&w](const std::string& text) {
               try {
                   w.ropeTheta = parseReal(text, ranges::ropeTheta());
               } catch (const std::invalid_argument& e) {
                   throw CLI::ValidationError("--rope-theta", e.what());
               }
           },
           "RoPE base frequency instead of the model's rope_theta")
        ->type_name("NUMBER")
        ->group(group);
    app.add_flag("--no-rope", w.noRope, "Do not rotate queries and keys: attention loses all position information")->group(group);
    app.add_option_function<std::vector<std::string>>(
           "--ablate-head",
           [&w](const std::vector<std::string>& items) {
               for (const auto& item : items) try {
                       w.ablateHeads.insert(parseLayerHead(item));
                   } catch (const std::invalid_argument& e) {
                       throw CLI::ValidationError("--ablate-head", e.what());
                   }
           },
           "Zero the output of attention head HEAD in layer LAYER (1-based LAYER:HEAD; repeatable)")
        ->type_name("LAYER:HEAD")
        ->group(group);
    app.add_option_function<std::vector<std::string>>(
           "--skip-layer",
           [&w](const std::vector<std::string>& items) {
               for (const auto& item : items) try {
                       w.skipLayers.insert(int(parseInteger(item, {1, std::numeric_limits<int>::max(), "a layer from 1 upwards"})) - 1);
                   } catch (const std::invalid_argument& e) {
                       throw CLI::ValidationError("--skip-layer", e.what());
                   }
           },
           "Bypass transformer block L (1-based; repeatable): the residual stream passes through unchanged")
        ->type_name("LAYER")
        ->group(group);
    app.add_option_function<std::string>(
           "--compute-dtype",
           [&w](const std::string& text) {
               try {
                   w.computeDType = parseComputeDType(text);
               } catch (const std::invalid_argument& e) {
                   throw CLI::ValidationError("--compute-dtype", e.what());
               }
           },
           "Compute activations, KV cache, scores, softmax and logits in bf16 or f32 instead of the dtype the weights choose "
           "(BF16 weights: bf16, with the walkthrough's roundings; any other: f32)")
        ->type_name("bf16|f32")
        ->group(group);
    addControlVectorOptions(app, w);
}

void addControlVectorOptions(CLI::App& app, WhatIf& w) {
    const char* group = "What-if experiments (recorded in the debug log, the trace and the viewer)";
    // The files are read as they are named, so a bad one is refused before anything runs; each
    // option's callback loads what both have given so far (CLI11 may call them in either order).
    struct Requested {
        std::vector<ControlVectorFile> files;
        std::optional<std::pair<int, int>> layers;
    };
    auto requested = std::make_shared<Requested>();
    auto load = [&w, requested](const std::string& option) {
        if (requested->files.empty()) return;
        try {
            w.steering = loadSteering(requested->files, requested->layers);
        } catch (const std::exception& e) {
            throw CLI::ValidationError(option, e.what());
        }
    };
    auto* vectors = app.add_option_function<std::vector<std::string>>(
                           "--control-vector",
                           [requested, load](const std::vector<std::string>& items) {
                               requested->files.clear();
                               for (const auto& item : items) try {
                                       requested->files.push_back(parseControlVectorArgument(item));
                                   } catch (const std::invalid_argument& e) {
                                       throw CLI::ValidationError("--control-vector", e.what());
                                   }
                               load("--control-vector");
                           },
                           "Add a control vector (llama.cpp's GGUF layout) to the blocks' outputs, times SCALE (default 1); "
                           "repeatable: the vectors add up")
                        ->type_name("FILE[:SCALE]")
                        ->group(group);
    app.add_option_function<std::string>(
           "--control-vector-layers",
           [requested, load](const std::string& text) {
               try {
                   requested->layers = options::parseLayerRange(text);
               } catch (const std::invalid_argument& e) {
                   throw CLI::ValidationError("--control-vector-layers", e.what());
               }
               load("--control-vector-layers");
           },
           "Steer only layers A to B (from 1, as the log counts; llama.cpp's --control-vector-layer-range A-1 B-1)")
        ->type_name("A-B")
        ->needs(vectors)
        ->group(group);
}

void addThreadsOption(CLI::App& app, int& threads) {
    const int most = ml::ThreadPool::maxThreads();
    addInteger(app, "--threads", threads, {1, most, fmt::format("a thread count from 1 to {}", most)}, "Compute threads (default: every core)")
        ->default_str("");
}

void addUbatchOption(CLI::App& app, int& nUbatch) {
    addInteger(app, "--ubatch", nUbatch, {1, 8192, "a token count from 1 to 8192"}, "Most tokens per forward pass (llama.cpp's -ub): a larger batch is split");
}

void addContextLengthOption(CLI::App& app, int& maxSeqLen) {
    addInteger(app, "--max-seq-len", maxSeqLen,
               {1, ModelArgs::kMaxPositions, fmt::format("a context length from 1 to {}", ModelArgs::kMaxPositions)},
               "Context length (default: the model's, else 2048)")
        ->default_str("");
}

}  // namespace llama::options
