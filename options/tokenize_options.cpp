#include "tokenize_options.h"

namespace llama::options {

void addTokenizeOptions(CLI::App& cmd, TokenizeSettings& o) {
    cmd.add_option("text", o.text, "The text to tokenize")->required();
    cmd.add_option("--word", o.word, "The piece whose BPE merges are shown (default: the longest piece)");
}

}  // namespace llama::options
