"""A/B: EAGLE-3 dynamic trees (6 tokens depth 2, 8 tokens depth 3) grown lean (only nodes that can have a kept child)
against full growth, timed in alternation on the held-out instructions; the tokens must be equal. Usage:
    python scripts/ab_tree_growth.py"""
import sys, pathlib; sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import time, statistics
from decoding_core.models import load_model
from decoding_core.heads import load_head
from decoding_core.eagle import EagleDecoder
from decoding_core.prompts import heldout_instructions
lm = load_model(); head = load_head(lm, "eagle3")
prompts = [lm.encode(p, chat=True) for p in heldout_instructions(4)]
def run(i, prune, total, depth):
    d = EagleDecoder(lm, head, "dynamic", top_k=8, depth=depth, total_tokens=total, max_new_tokens=64, stop_at_eos=False)
    d.prune = prune
    t = time.perf_counter(); r = d.start(i).run(); return len(r.tokens) / (time.perf_counter() - t), r.tokens
for total, depth in ((6, 2), (8, 3)):
    ratios = []
    for i in prompts:
        run(i, True, total, depth); run(i, False, total, depth)
        for _ in range(2):
            a, ta = run(i, True, total, depth); b, tb = run(i, False, total, depth)
            assert ta == tb
            ratios.append(a / b)
    print(f"tree {total} tokens depth {depth}: pruned / full growth tok/s, median of {len(ratios)} pairs: {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")
