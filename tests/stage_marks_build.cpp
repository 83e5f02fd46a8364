// Built by stage_marks_build_test.sh, once per MARK: 0 must build; each other variant is a
// mistake the compiler must refuse (the script checks which error it gives).
#include "stages/stage_marks.h"

using namespace llama;

std::vector<StageField> mark(const Tensor& x, const Tensor& ffn_gate, const Tensor& h) {
#if MARK == 0
    return marks::fieldsOf(marks::FfnGate{.x = x, .ffn_gate = ffn_gate, .h = h});
#elif MARK == 1  // a misspelt field
    return marks::fieldsOf(marks::FfnGate{.x = x, .ffn_gaet = ffn_gate, .h = h});
#elif MARK == 2  // a missing tensor
    return marks::fieldsOf(marks::FfnGate{.x = x, .h = h});
#elif MARK == 3  // a missing number
    return marks::fieldsOf(marks::ScoresSoftmax{.scores = h});
#elif MARK == 4  // a text made before anyone asked for it
    return marks::fieldsOf(marks::SequenceLoop{.phase = std::string("prefill"), .curPos = 1, .inputTokens = x});
#endif
}
