#!/usr/bin/env python3
"""Golden outputs of the bf16 PyTorch reference on the exported model, for
checking the C++ engine. For each prompt writes <name>.json with:
  prompt, tokens (prompt ids, <|begin_of_text|> first),
  last_logits (float32 logits at the last prompt position, one prefill pass
               with start_pos 0, rounded to 6 significant digits),
  top5 (top-5 ids at every prompt position, from the same prefill pass),
  top5_logits (their logits),
  greedy (32 greedy ids: prefill at start_pos 0, then one token per step
          through the KV cache), greedy_text.
Also writes tokenizer_cases.json (strings and their ids, special tokens
recognised when they appear literally)."""
import json, os, sys
import torch
GOLD = os.path.dirname(os.path.abspath(__file__))
ASSETS = os.path.dirname(GOLD)
sys.path.insert(0, ASSETS)
from reference_model import load_model, generate_greedy

PROMPTS = {
    "genesis": "In the beginning God created the heaven and the earth.",
    "moses": "And the LORD said unto Moses,",
    "blessed": "Blessed are the",
    "chat": "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nWho was Moses?<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "long": "And it came to pass, when the king heard the words of the book of the law, that he rent "
            "his clothes. And the king commanded Hilkiah the priest, and Ahikam the son of Shaphan, "
            "and Achbor the son of Michaiah, saying,",
}

TOKENIZER_CASES = [
    "In the beginning God created the heaven and the earth.",
    "And the LORD said unto Moses,",
    "Hello, world!",
    "hello world",
    "  leading spaces and trailing   ",
    "tabs\tand\t\ttabs",
    "line one\nline two\n\nline four\r\nwindows line",
    "\n\n\n",
    "   ",
    "",
    "a",
    "12345",
    "3.14159 and 1,000,000 and 2024-11-21",
    "I'm sure they'll say it's what we've done; they'd know. YOU'RE RIGHT, HE'S HERE",
    "don't DON'T Don't",
    "café naïve résumé",
    "你好，世界",
    "🙂 emoji 👍🏽 and ❤️",
    "Unto thee, O LORD, do I lift up my soul.",
    "(parenthesis) [brackets] {braces} <angle>",
    "quotes: \"double\" 'single' `back`",
    "!!! ??? ... ---",
    "snake_case camelCase kebab-case CONSTANT_CASE",
    "http://example.com/path?query=1&x=y",
    "<|begin_of_text|>Hello<|eot_id|>",
    "<|start_header_id|>user<|end_header_id|>\n\nWho was Moses?<|eot_id|>",
    "text<|end_of_text|>more<|reserved_special_token_0|>end",
    "<|not_a_special_token|>",
    "Jerusalem Nebuchadnezzar Melchizedek Mahershalalhashbaz",
    "x = y + z * 2;   // comment",
    "Ελληνικά и русский",
    "\u00a0non-breaking\u00a0space",
]

def r6(x):
    return float(f"{x:.6g}")

@torch.inference_mode()
def main():
    torch.set_num_threads(2)
    model, tok = load_model(max_seq_len=512, max_batch_size=1)
    for name, prompt in PROMPTS.items():
        ids = tok.encode(prompt, bos=not prompt.startswith("<|begin_of_text|>"))
        logits = model.forward(torch.tensor([ids]), 0)[0]          # (seqlen, vocab) float32
        top5_values, top5_ids = torch.topk(logits, 5, dim=-1)
        top5 = top5_ids.tolist()
        greedy = generate_greedy(model, ids, 32)
        # self-check: the cached greedy steps against one uncached full pass
        full = model.forward(torch.tensor([ids + greedy[:-1]]), 0)[0, len(ids) - 1:]
        agree = sum(int(a == b) for a, b in zip(full.argmax(-1).tolist(), greedy))
        rec = {
            "prompt": prompt,
            "tokens": ids,
            "n_tokens": len(ids),
            "last_logits": [r6(v) for v in logits[-1].tolist()],
            "top5": top5,
            # the logits of those ids: near-ties (one bf16 step apart) show where argmax is fragile
            "top5_logits": top5_values.tolist(),
            "greedy": greedy,
            "greedy_text": tok.decode(greedy),
        }
        rec["check_uncached_argmax_agree"] = f"{agree}/{len(greedy)}"
        with open(os.path.join(GOLD, name + ".json"), "w") as f:
            json.dump(rec, f, separators=(",", ":"), ensure_ascii=False)
            f.write("\n")
        print(f"{name}: {len(ids)} tokens, uncached argmax agrees {agree}/{len(greedy)} -> {rec['greedy_text']!r}")
    cases = [{"text": s, "ids": tok.encode(s, bos=False, allow_special=True)} for s in TOKENIZER_CASES]
    for c in cases:
        assert tok.decode(c["ids"]) == c["text"], c
    with open(os.path.join(GOLD, "tokenizer_cases.json"), "w") as f:
        json.dump({"n_base": tok.n_base, "vocab_size": tok.n_words, "bos_id": tok.bos_id,
                   "eot_id": tok.eot_id,
                   # In id order: the C++ tokenizer's own list is checked against it.
                   "special_tokens": sorted(tok.special_tokens, key=tok.special_tokens.get),
                   "cases": cases}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(cases)} tokenizer cases")

if __name__ == "__main__":
    main()
