#include "state/dim_names.h"

#include <utility>

namespace llama::viewer {

std::vector<std::string> nameDims(const Shape& shape, const DimContext& c) {
    const ModelArgs& a = c.args;
    // In the order a learner meets them; the sequence axes first because they change every step.
    std::vector<std::pair<std::string, int64_t>> known = {{"seqLen", c.seqLen}};
    if (c.startPos > 0) known.push_back({"startPos+seqLen", c.startPos + c.seqLen});
    known.insert(known.end(), {{"N_Heads", a.n_heads},
                               {"N_KVHeads", a.n_kv_heads},
                               {"HeadDim", a.headDim()},
                               {"HeadDim/2", a.headDim() / 2},
                               {"Dim", a.dim},
                               {"N_KVHeads*HeadDim", int64_t(a.n_kv_heads) * a.headDim()},
                               {"FFNHiddenDim", a.ffnHiddenDim()},
                               {"VocabSize", a.vocab_size},
                               {"maxSeqLen", a.max_seq_len}});
    std::vector<std::string> names;
    for (int64_t size : shape) {
        // An adapter's A and B have the rank as an axis; that it equals a head count is chance.
        if (c.loraRank > 0 && size == c.loraRank) {
            names.push_back("rank");
            continue;
        }
        std::string name;
        for (const auto& [label, value] : known) {
            if (value != size || value <= 0) continue;
            // Dim equals N_Heads*HeadDim by construction; N_KVHeads*HeadDim equals Dim without GQA.
            if (label == "N_KVHeads*HeadDim" && size == a.dim) continue;
            name += name.empty() ? label : " or " + label;
        }
        names.push_back(name.empty() ? std::to_string(size) : name);
    }
    return names;
}

bool isHeadAxis(const std::string& name) { return name == "N_Heads" || name == "N_KVHeads"; }

}  // namespace llama::viewer
