"""Runner-up leaves under rejection sampling: the speculative defaults (copy 0.3, lookup branch 8, runner-ups) with the
runner-up drawn from q without the chain's token (the decoder's rule) against q's second choice as a point mass (the
rule before session 35) and against no runner-ups, on held-out instructions and several seeds.

    python scripts/runner_up_sampling.py --prompts 12 --seeds 3

Prints, per rule, the pooled sampling tau and how many runner-ups were taken. Both rules are lossless; the question
is how often the extra guess is accepted.
"""
from __future__ import annotations

import argparse

from train_common import ROOT, corpus_rows

from decoding_core.draft import load_embedded_draft
from decoding_core.models import load_model
from decoding_core.speculative import SpeculativeDecoder


class PointMassRunnerUp(SpeculativeDecoder):
    """The runner-up as q's second choice, verified as a point mass, whatever the rule (the tree's greedy shape)."""

    def _tree(self, *args):
        rule, self.rule = self.rule, "point mass"
        try:
            return super()._tree(*args)
        finally:
            self.rule = rule


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="assets/corpus")
    ap.add_argument("--prompts", type=int, default=12)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--n-draft", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    args = ap.parse_args(argv)
    lm = load_model(device="cpu")
    draft = load_embedded_draft(lm)
    prompts = [lm.encode(r["instruction"], chat=True) for r in corpus_rows(ROOT / args.corpus, "heldout")[: args.prompts]]
    out = {}
    for name, cls, runner_up in (("drawn from q without the chain's token", SpeculativeDecoder, True),
                                 ("q's second choice, a point mass", PointMassRunnerUp, True),
                                 ("no runner-ups", SpeculativeDecoder, False)):
        acc = steps = taken = 0
        for ids in prompts:
            for seed in range(args.seeds):
                dec = cls(lm, draft, args.n_draft, "sample", max_new_tokens=args.max_new_tokens, seed=seed, copy=0.3,
                          lookup=8, runner_up=runner_up).start(ids)
                m = dec.run().metrics
                acc, steps = acc + m["accepted"], steps + m["verify_steps"]
                taken += sum(d.source == "runner-up" for s in dec.history for d in s.accepted_branch)
        out[name] = {"tau": (acc + steps) / steps, "steps": steps, "runner_ups_taken": taken}
        print(f"runner-up {name}: sampling tau {out[name]['tau']:.3f} ({steps} verify steps, {taken} runner-ups taken)",
              flush=True)
    return out


if __name__ == "__main__":
    main()
