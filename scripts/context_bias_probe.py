"""Does a bonus on the EAGLE-3 head's logits for tokens already in the context raise held-out tau?

The held-out gap is new topics (README, "Topics, not wording"): the words of a new topic appear in the prompt, and
the head, trained on other topics, ranks them low. This probe adds ``b`` to the head's logit of every draft-vocabulary
token that occurs in the committed context (special tokens excepted) before the tree is grown, and measures greedy
tau of the reference dynamic tree (top-k 8, depth 5, 32 tokens) on held-out instructions. Greedy verification keeps
every output equal to plain greedy whatever the bonus. Tune on instructions the README's figures do not use
(``--first 48 --count 48``: the benchmark and eval_tau.py read the first 48).

    python scripts/context_bias_probe.py --bias 0,1,2 --first 48 --count 48   # session 38: docs/eval-s38.log
"""
from __future__ import annotations

import argparse
import json
import time

import torch
from train_common import ROOT, corpus_rows

from decoding_core.eagle import EagleDecoder
from decoding_core.eagle3_head import load_eagle3
from decoding_core.models import load_model
from decoding_core.sizing import greedy_references


class BiasedEagle(EagleDecoder):
    """EagleDecoder whose head adds ``bias`` to the logits of the draft tokens already in the context."""

    def __init__(self, *a, bias: float = 0.0, t2d: dict | None = None, never=frozenset(), **kw):
        super().__init__(*a, **kw)
        self.bias, self.t2d, self.never, self._key, self._bonus = bias, t2d or {}, never, None, None

    def _draft_logp(self, f_hat: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            logits = self.head.draft_logits(f_hat).float()
            if self.bias:
                if self._key != len(self.context):  # once per step: the context grows between steps only
                    bonus = torch.zeros(logits.shape[-1])
                    bonus[[self.t2d[t] for t in set(self.context) if t in self.t2d and t not in self.never]] = self.bias
                    self._key, self._bonus = len(self.context), bonus
                logits = logits + self._bonus
            return torch.log_softmax(logits, dim=-1)


def main(argv=None) -> dict:
    """{bias: {"tau", "instructions", "s", "same"}}; "same": every output equal to plain greedy's."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=str(ROOT / "assets" / "corpus"))
    ap.add_argument("--bias", default="0,1,2", help="comma-separated bonuses (0 = the head as shipped)")
    ap.add_argument("--first", type=int, default=48, help="the first held-out instruction used")
    ap.add_argument("--count", type=int, default=48)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    args = ap.parse_args(argv)
    lm = load_model(device="cpu")
    head = load_eagle3(lm)
    rows = corpus_rows(args.corpus, "heldout")[args.first: args.first + args.count]
    prompts = [lm.encode(r["instruction"], chat=True) for r in rows]
    refs = greedy_references(lm, prompts, args.max_new_tokens)
    t2d = {int(t): i for i, t in enumerate(head.d2t.tolist())}
    never = frozenset(getattr(lm.tokenizer, "all_special_ids", []))
    out = {}
    for b in (float(x) for x in args.bias.split(",")):
        acc = steps = 0
        same = True
        t0 = time.perf_counter()
        for ids, ref in zip(prompts, refs):
            result = BiasedEagle(lm, head, "dynamic", 8, 5, 32, max_new_tokens=args.max_new_tokens, bias=b, t2d=t2d,
                                 never=never).start(ids).run()
            acc, steps = acc + result.metrics["accepted"], steps + result.metrics["verify_steps"]
            same = same and result.tokens == ref
        out[b] = {"bias": b, "instructions": f"{args.first}:{args.first + len(prompts)}",
                  "tau": round((acc + steps) / steps, 4), "same": same, "s": round(time.perf_counter() - t0)}
        print(json.dumps(out[b]), flush=True)
    return out


if __name__ == "__main__":
    main()
