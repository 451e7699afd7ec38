"""Ours (speculative, the draft over the full vocabulary, N = 4) against transformers' assisted generation with
the same draft, for one or more draft folders, as the benchmark pairs them (held-out instructions, 64 tokens,
alternating runs); prints tokens/s of each, the median per-pair ratio and ours' tau.

    python scripts/assist_pair.py runs/draft-s10-old assets/draft runs/draft-s10-old
"""
import dataclasses
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import torch  # noqa: E402
from transformers import GenerationConfig
from decoding_core.bench import Bench
from decoding_core.draft import load_embedded_draft
from decoding_core.models import load_model
from decoding_core.speculative import SpeculativeDecoder
lm = load_model()
b = Bench(lm, quick=False); b.prompts = b.heldout; b.repeats = 2
for folder in sys.argv[1:]:
    draft = load_embedded_draft(lm, Path(folder))
    same = dataclasses.replace(draft, draft_vocab=None, draft_head=None)
    taus = []
    def run4(i):
        r = SpeculativeDecoder(lm, same, 4, "greedy", max_new_tokens=b.n, stop_at_eos=False).start(i).run()
        taus.append(r.metrics["mean_accepted_length"]); return r
    def hf(i):
        gc = GenerationConfig(max_new_tokens=b.n, min_new_tokens=b.n, pad_token_id=lm.eos_ids[0], eos_token_id=None,
                              do_sample=False, num_assistant_tokens=4, num_assistant_tokens_schedule="constant",
                              assistant_confidence_threshold=0.0)
        return lm.model.generate(torch.tensor([i]), generation_config=gc, assistant_model=draft.model)
    ours, theirs, ratio = b.paired(run4, hf, lambda r: len(r.tokens), lambda o: b.n)
    print(f"{folder}: ours {ours:.2f} tok/s, assisted {theirs:.2f} tok/s, ratio {ratio:.3f}, tau(full vocab) {statistics.median(taus):.2f}", flush=True)
