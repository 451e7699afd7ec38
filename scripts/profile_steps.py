"""What a plain greedy, an EAGLE-3 (6 tokens, depth 2) and a speculative (N = 2) step are made of: each part timed
(wrapped with perf_counter) over held-out instructions, 64 tokens, after a warm-up. Usage:
    python scripts/profile_steps.py [number of prompts, default 3]"""
import sys, pathlib; sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import sys, time, collections, functools
import torch
from decoding_core.models import load_model
from decoding_core.heads import load_head
from decoding_core.draft import load_embedded_draft
from decoding_core.eagle import EagleDecoder
from decoding_core.speculative import SpeculativeDecoder
from decoding_core.decoders import AutoregressiveDecoder
from decoding_core import eagle as E, decoders as D, speculative as S, fastpath as F
from decoding_core.prompts import heldout_instructions

lm = load_model()
head = load_head(lm, "eagle3")
draft = load_embedded_draft(lm)
prompts = [lm.encode(p, chat=True) for p in heldout_instructions(4)][:int(sys.argv[1]) if len(sys.argv) > 1 else 3]
T = collections.defaultdict(float); C = collections.Counter()

def timed(obj, name, label):
    f = getattr(obj, name)
    @functools.wraps(f)
    def w(*a, **k):
        t = time.perf_counter(); r = f(*a, **k); T[label] += time.perf_counter() - t; C[label] += 1; return r
    setattr(obj, name, w)

for n in ("_draft_tree", "_expand_level", "_head", "_draft_logp", "_target", "_features", "_keep", "_commit", "_step", "_grow_dynamic"):
    timed(EagleDecoder, n, "E." + n)
timed(E, "tree_verify_mask", "E.tree_verify_mask"); timed(E, "tree_attention_mask", "E.tree_attention_mask")
for n in ("_propose", "_probs", "_record", "_step", "_commit"):
    timed(SpeculativeDecoder, n, "S." + n)
timed(S, "draft_next_logits", "S.draft_next_logits"); timed(S, "verify_greedy", "S.verify_greedy")
timed(F.TargetPass, "__call__", "TargetPass")
timed(D, "summarize_distribution", "G.summarize")
timed(D.AutoregressiveDecoder, "_step", "G._step")
lmod = lm.model.model
orig = lmod.forward
def fwd(*a, **k):
    t = time.perf_counter(); r = orig(*a, **k); T["model.model.forward"] += time.perf_counter() - t; C["model.model.forward"] += 1; return r
lmod.forward = fwd
horig = lm.model.lm_head.forward
def hf(*a, **k):
    t = time.perf_counter(); r = horig(*a, **k); T["lm_head"] += time.perf_counter() - t; C["lm_head"] += 1; return r
lm.model.lm_head.forward = hf

def e(i): return EagleDecoder(lm, head, "dynamic", top_k=8, depth=2, total_tokens=6, max_new_tokens=64, stop_at_eos=False).start(i).run()
def s2(i): return SpeculativeDecoder(lm, draft, 2, "greedy", max_new_tokens=64, stop_at_eos=False).start(i).run()
def g(i): return AutoregressiveDecoder(lm, max_new_tokens=64, stop_at_eos=False).start(i).run()
for i in prompts: e(i); s2(i); g(i)
for name, fn in (("greedy", g), ("eagle3 6/2", e), ("spec N=2", s2)):
    T.clear(); C.clear()
    wall = 0; steps = 0; ntok = 0
    for i in prompts:
        t = time.perf_counter(); r = fn(i); wall += time.perf_counter() - t
        steps += r.metrics["target_forwards"]; ntok += len(r.tokens)
    print(f"== {name}: {ntok / wall:.1f} tok/s, {1000 * wall / steps:.2f} ms/step, {steps} steps, {ntok / steps:.2f} tok/step")
    for k, v in sorted(T.items(), key=lambda kv: -kv[1]):
        print(f"   {k:24s} {1000 * v / steps:8.3f} ms/step  ({C[k] / steps:.2f} calls/step)")
