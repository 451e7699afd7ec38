"""The app's longer texts (explanations, captions), keyed by stable ids: pages ask for text by id.

One catalogue keeps the wording in one place (and ready for a second language).
"""

TEXT = {
    'home': """A language model does not write text: it gives a **probability for every possible next token**, and a
*decoding algorithm* turns those probabilities into text. Everything on these pages runs a real
transformer (by default **SmolLM2-135M-Instruct**, shipped with the app) step by step, so every
picture is what the model actually did.

**How to use it.** The sidebar holds what every page shares: the model, the device, the prompt
(wrapped in the chat template by default) and the seed. Every random draw uses that seed, so the
same settings give the same tokens, and the page's address carries the settings: copy the link to
share a run. **Glossary** (last in the menu) defines every metric.""",
    'home.lecture': (
        'A suggested order for a class: each step names what to look at first and offers experiments that set'
        " the page's controls for you (the sidebar's model, prompt and seed stay as they are). Every page also"
        ' says at its top what to look at first.'),
    'sampling.rules': (
        'The model outputs one score (logit) $\\ell_i$ per token. **Temperature** divides them; **top-k**'
        ' keeps the k largest; **top-p** keeps the smallest most-likely set whose mass reaches p;'
        ' **min-p** drops tokens far less likely than the best one. Cut tokens get $-\\infty$ (greyed'
        ' bars), and the rest are renormalised by the softmax.'),
    'sampling.gumbel': (
        'Adding independent **Gumbel noise** $G_i=-\\log(-\\log U_i)$ to the logits and taking the argmax'
        ' draws exactly from the softmax, without computing it. The **exponential race** (argmax'
        ' $p_i/E_i$, $E_i\\sim\\text{Exp}(1)$) is the same idea. Each histogram below is compared with the'
        ' exact probabilities by the total-variation distance and a chi-square test: a healthy sampler'
        ' has a small TV (shrinking like $1/\\sqrt{M}$) and a p-value that is not tiny.'),
    'sampling.block_trick': (
        'Gumbel-max and the race use max-stability to stay fast and exact: the max of Gumbel-perturbed'
        " logits over a block of tokens is itself Gumbel at the block's logsumexp, so a block is picked"
        ' first, then a token inside it. Times are for this machine and include that trick.'),
    'sampling.pitfall': (
        "The source notes' `GumbelSampler` draws its noise **once**, in `__init__`, and adds the same"
        ' noise at every step. Then the chosen token is a fixed function of the logits: whenever the'
        ' distribution repeats, the same token comes out, every time. Below, the **same** distribution is'
        ' sampled T times. With fresh noise the histogram follows the probabilities; with reused noise'
        ' all T draws land on one token, and which one depends only on the seed. Pre-drawing a *block* of'
        ' noise is fine as long as each row is used once (the `gumbel-block` sampler above does exactly'
        ' that).'),
    'sampling.stepping': (
        'Each step runs the model once (reusing its KV cache), applies the processors above and draws one'
        ' token with the chosen sampler. Colours show the probability each token was drawn with.'),
    'beam.pruning': (
        '**Pruning** (Freitag & Al-Onaizan 2017; their settings: rp = 0.6, ap = 2.5, rpl = 0.02, mc = 3).'
        ' Pruned candidates are not replaced: the beam shrinks, and fewer hypotheses are fed to the'
        ' model.'),
    'beam.graph': (
        'Bold blue = the current frontier (running beams); green double border = finished (ends in EOS); amber dashed = stopped by the length limit;'
        ' grey dashed = pruned (✂ with the rule); dotted = fell off the top-k. Each node shows its token'
        ' and cumulative score (log-probability); hover for details.'),
    'beam.empty': (
        'Every candidate was pruned: the beam is empty. This is what the literal relative rule does on'
        ' log-probabilities: rp × (a negative max score) lies ABOVE the max score, so the best candidate'
        ' is pruned too.'),
    'spec.sweep': (
        'With per-token acceptance α (assumed independent) and draft cost c (one draft token ÷ one target'
        ' token), a step yields on average $(1-\\alpha^{N+1})/(1-\\alpha)$ tokens, and the speed-up is'),
    'spec.sweep_measured': (
        'Below, α and c are **measured** (α = the acceptance rate at N = 1; c = draft time per drafted'
        " token ÷ target time per token in plain decoding), and every N is an actual run of this page's"
        ' settings.'),
    'spec.drift': (
        "The notes accept a draft token whenever it is among the target's top K. Here the draft samples"
        ' its first token y ~ q and each rule decides, many times over: the histogram of the token that'
        " comes out is compared with the target's own distribution p. Rejection sampling matches p (it is"
        ' lossless); top-K with K > 1 drifts towards the draft. Greedy match is exact in its own setting:'
        " it reproduces the target's greedy output token for token (tested)."),
    'spec.drift_noise': (
        'TV distance also includes sampling noise, about √(vocab share / trials); rejection sampling'
        ' stays at that floor.'),
    'spec.sizing': (
        'Left: one target forward over T tokens, measured now on this machine (a verify pass of N drafts'
        " reads N + 1 tokens). Right: the draft's held-out mean accepted length for each N divided by the"
        ' cost of N draft steps ({draft_ms:.1f} ms each here) plus that verify pass.'),
    'eagle.mask': (
        "Each node: its token, its tree index and the head's cumulative confidence q as a percentage"
        ' (product of the draft probabilities along its path). Green = the accepted path (root included);'
        ' dashed = rejected branches. The compact view shows the accepted path and the alternatives branching off'
        ' it ("+n below": drafted nodes hidden under an alternative); "whole tree" shows every node.'),
    'eagle.sizing': (
        "A bigger tree accepts more tokens per step, but the target's verify pass over T tokens is not"
        ' free: on a GPU it costs about as much as one token up to dozens of tokens, on this CPU it grows'
        " with T (left: measured now). The head's mean accepted length τ for every size was measured once"
        " on held-out instructions (its manifest); dividing it by each size's cost here gives the"
        ' expected tokens/s (right), and the best size is used: **{total} tokens, depth {depth}**. Turn'
        ' *Auto size* off to pick your own.'),
    'eagle.why1': (
        "The target's last hidden state **f** (after its final norm) is what its LM head turns into token"
        " probabilities. EAGLE's head learns the next feature from the current one: features change"
        ' smoothly from one position to the next, so a single layer can follow them, while a small'
        ' *token* model has to learn the whole language on its own. The next feature depends on which'
        ' token was actually chosen (from the same feature, “I am” and “I will” lead to different'
        ' futures), so the head also reads the **next token**: its input at position i is the pair'
        ' (feature i, token i+1), the **token shift**.'),
    'eagle.why3': (
        "**EAGLE-3** changes three things. *Which features*: the last layer's feature is already shaped"
        ' for the very next token only; EAGLE-3 reads the hidden states entering a low, a middle and a'
        ' high layer (for this 30-layer target: 2, 15 and 27) and fuses them, g = fc([low; middle;'
        ' high]). *Which vocabulary*: it drafts only among the most frequent answer tokens with its own'
        " small LM head, which makes every draft level several times cheaper than the target's 49,152-row"
        ' head; the target still verifies in its full vocabulary, so nothing is lost. *What training-time'
        ' test fixes*: at depth 2 and deeper the head must read its OWN predicted features, which are'
        " never exactly the target's. EAGLE-1 was trained on true features only, so its errors compound"
        ' with depth; EAGLE-3 is trained by unrolling itself several steps and feeding back its own'
        ' outputs, exactly as it drafts. The per-depth acceptance chart above shows the effect.'),
    'eagle.cmp': (
        'Same prompt, length, device and dtype, measured now in this session (greedy, so all three'
        ' produce the same text). Speed-up = tokens/s ÷ tokens/s of plain target decoding.'),
    'eagle.depth': (
        'For a chain (speculative decoding) depth d is the d-th draft; for a tree, the d-th node of the'
        ' accepted path. A tree reaches deeper because several guesses are checked at every depth.'),
    'compare.intro': (
        'Pick each column\'s strategy and open its **Settings** (greedy, sampling with its processors and sampler,'
        ' beam search with or without pruning and a sampled prefix, stochastic beams, speculative decoding with a'
        ' draft, rule and N, EAGLE with a head and a tree). Every column decodes the same prompt with the same'
        ' seed and length, one after another. Column 1 is the reference for speed-up and "same text". A setting'
        ' changed after a run marks that column **stale**; a **pinned** column keeps its result while the others'
        ' run again. The whole comparison is in the link.'),
    'compare.chart': (
        'One bar per column. tokens/s: decoding speed on this machine (higher is faster). log p(output): how'
        ' likely the target finds the whole output (closer to 0 is more likely; beam search maximises it).'
        ' distinct-2: unique bigrams / all bigrams (lower = more repetition). τ: tokens per target forward for'
        ' the drafting strategies (no bar where it does not apply).'),
    'compare.caption': (
        'Wall time covers decoding only (the model was loaded and warmed up before). τ = (accepted +'
        ' verify steps) / verify steps. Greedy, beam k = 1, greedy-match speculative decoding, prompt'
        ' lookup and greedy EAGLE must give the same text as greedy where their settings are greedy;'
        " sampling differs by design. Target forward: the sidebar's choice where a strategy supports it"
        ' (beam search and EAGLE run eager). log p (output): the sum of the output tokens\' log-probabilities'
        ' under the target (one extra forward, not timed). Tokens are coloured as on their own pages: by the'
        ' probability they were drawn with, or by where they came from (accepted draft, correction, bonus).'),
    'spec.price': (
        "The notes' table for choosing N says what a long draft costs besides rejections: more softmax work and"
        " memory, and a longer stall per step. Each row becomes a figure here, from the same runs: left, the"
        " wall time of one step (draft N tokens + one verify pass), median and 90th percentile, and the draft's"
        " part of it; right, the full-vocabulary rows one step holds at once (N + 1 target rows and N draft"
        " rows of logits and probabilities, from their shapes). A longer step is a longer wait before the"
        " next words appear: interactive use prefers a small N even when a larger one is faster overall."),
    'cost.intro': (
        "Every decoding step ends by drawing one token from k = 49,152 categories. The source notes list three"
        " ways to draw n samples from k categories, then argue that in decoding the alias table \"buys"
        " nothing\" and motivate the Gumbel-max trick. Both statements are true, in different regimes: drawing"
        " MANY samples from ONE distribution (Monte Carlo), or ONE sample from each of MANY NEW distributions"
        " (decoding, where every step brings a new distribution). Below, each method is timed in both"
        " regimes on this machine, with the notes' cost model drawn through the measured points (dotted)."
        " Vose's method builds the alias table in O(k) with two work lists (no sort), so the honest figure is"
        " O(k + n), not the notes' O(k log k + n)."),
    'cost.one': (
        "With one distribution, whatever is built once is reused by every draw: the CDF (binary search,"
        " torch.multinomial) or the alias table (O(1) per draw). Gumbel-max and the exponential race need k"
        " fresh random numbers for EVERY draw, O(nk): their lines climb with slope 1 in n from the start. This"
        " is why Gumbel-max looks slow on the Sampling page's \"M draws\" panel (which uses a block trick to"
        " stay practical): it is the wrong tool for this regime."),
    'cost.new': (
        "In decoding every step brings a new distribution (n = 1 per distribution): nothing built can be"
        " reused. The alias table is rebuilt for every row (here a plain Python loop over k, which makes its"
        " O(k) expensive), the CDF methods normalise and sum k terms for every row, and Gumbel-max or the race"
        " need one pass of noise + argmax, with no softmax and no normalisation."),
    'cost.why': (
        "**Why Gumbel-max suits decoding hardware.** argmax(l + G) needs no normalisation: no sum over the"
        " vocabulary before the draw and no prefix scan, only an elementwise add and one reduction, which"
        " parallelise and fuse with the logits computation on a GPU. **When is precomputed noise"
        " legitimate?** Noise may be drawn ahead of time in a block, one fresh row for each future step, as"
        " long as every row is used once; the notes' GumbelSampler instead adds the SAME noise at every step,"
        " which makes the token a fixed function of the logits (see the Sampling page's pitfall)."),
    'cost.exact': (
        "Each method's draws are compared with the exact probabilities of a 200-category distribution"
        " (the model's 200 largest logits); a p-value that is not tiny means no detectable difference. The"
        " uniforms are drawn on the open interval (0, 1), which bounds the Gumbel noise: a token more than"
        " about 20 nats below the best can never be drawn by Gumbel-max or the race (probability < 1e-8)."),
    'beam.sbs': (
        "**Stochastic beam search.** Every candidate gets a random key: its log-probability plus Gumbel noise,"
        " adjusted so that the largest key among a node's children equals the node's own key (the Gumbel-top-k"
        " trick applied level by level). Keeping the k largest keys at every step then SAMPLES k different"
        " sequences without replacement, instead of finding the k most likely ones: ranks in the tree are by"
        " key, the scores shown are log-probabilities. Same seed, same sample."),
    'beam.diversity': (
        "The notes claim that sampling the first tokens and beam-searching the rest gives diverse *and* fluent"
        " outputs. Measured here on n outputs per method for the same prompt: plain beam search (deterministic:"
        " every seed gives the same output), sample-then-beam and plain sampling over n seeds (at the prefix"
        " temperature), and stochastic beam search, whose ONE run with k = n returns n distinct samples."
        " **distinct-n** = unique n-grams / all n-grams over the n outputs (higher = more diverse); **pairwise"
        " overlap** = mean Jaccard overlap of two outputs' bigram sets (lower = more diverse); **mean log-prob**"
        " = how likely the target finds an output (higher = more fluent by the model's own measure)."),
    'beam.tuning': (
        "Freitag & Al-Onaizan tuned their thresholds for translation with large beams. Do they carry over to a"
        " small chat model? Below, each threshold alone over a range (and the paper's combination, the red"
        " star) runs on your prompt and three held-out instructions, against the same search without pruning:"
        " how many expansions it saves (up) against how often the best hypothesis stays the same (right). The"
        " recommendation is the largest saving that keeps the best hypothesis on at least 90% of the prompts."),
}

# The guided lecture path (Home) and each page's "look at this first" line. Each experiment sets the named
# page controls (validated like any widget value) and opens the page.
LECTURE = [
    {"page": "sampling", "title": "Sampling",
     "teaches": "Temperature, top-k, top-p and min-p reshape the next-token distribution; the Gumbel-max trick draws from it without a softmax, and reusing its noise is a bug you can watch collapse.",
     "look": "Look first at the bars: pale ones are the model's raw distribution, deep blue what is left after "
             "your temperature / top-k / top-p / min-p (cut tokens turn grey).",
     "tries": [
         ("Sharpen it", "Temperature 0.3: the blue bars pile onto the most likely token (low T → close to greedy).",
          {"temperature": 0.3}),
         ("Flatten it", "Temperature 2.0: unlikely tokens gain mass; step through the text and watch it wander.",
          {"temperature": 2.0}),
         ("The reused-noise bug", "Section 3 with 2,000 steps: Gumbel noise drawn once and reused keeps picking "
                                  "the same token; fresh noise matches the distribution.", {"pitfall_steps": 2000}),
     ]},
    {"page": "sampling_cost", "title": "Cost of sampling",
     "teaches": "What drawing one token costs: the notes' table (linear scan, binary search, alias table, Gumbel-max) measured in both regimes, many draws from one distribution and one draw per new distribution.",
     "look": "Look first at where the lines cross: which way of drawing a token is cheapest depends on how many "
             "draws share one distribution.",
     "tries": [
         ("Measure both regimes", "Press Measure: many draws from ONE distribution favour a table built once "
                                  "(alias); one draw per NEW distribution does not.", {"cost_budget": 0.4}),
     ]},
    {"page": "beam", "title": "Beam search",
     "teaches": "Keeping the k best partial answers; Freitag & Al-Onaizan's pruning rules (relative, absolute, local, per-node) and what they save; sampling a prefix before beam search; stochastic beams (k samples without replacement); tuning the thresholds.",
     "look": "Look first at the tree: blue boxes are the beam (the frontier), dashed grey ones were pruned, and "
             "the table under it says which rule pruned each.",
     "tries": [
         ("The paper's thresholds", "rp 0.6, ap 2.5, rpl 0.02, mc 3 switched on: count what each rule prunes and "
                                    "whether the best answer changes.",
          {"use_rp": True, "use_ap": True, "use_rpl": True, "use_mc": True}),
         ("The literal relative rule", "The notes' rule applied to log-probs (score ≤ rp × best score): with "
                                       "negative scores the best candidate itself is pruned, and the beam empties.",
          {"use_rp": True, "literal_rp": True}),
         ("Stochastic beams", "Sample k sequences without replacement: different answers, each a real sample.",
          {"stochastic": True}),
     ]},
    {"page": "speculative", "title": "Speculative decoding",
     "teaches": "A small draft guesses N tokens, the big model checks them in one pass; top-K, greedy and lossless rejection-sampling verification.",
     "look": "Look first at the coloured text: green tokens were drafted and accepted, red (struck) ones "
             "rejected; each verify step adds one token of the target's own (orange: a correction, blue: a bonus).",
     "tries": [
         ("Longer drafts", "N = 8: more tokens per verify step when the draft is right, more wasted work when it "
                           "is not. Compare τ with N = 2.", {"n_auto": False, "n_draft": 8}),
         ("The notes' top-K rule", "Top-K verification with K = 3: fast, but the drift section shows its output "
                                   "distribution is no longer the target's (rejection sampling's is).",
          {"rule": "topk", "verify_k": 3, "drift_k": 3}),
         ("Copy from the prompt", "Prompt lookup drafts by copying an earlier n-gram: free drafts, accepted only "
                                  "when the answer repeats the prompt.", {"draft_source": "prompt-lookup"}),
     ]},
    {"page": "eagle", "title": "EAGLE",
     "teaches": "A draft head that predicts the target's *features*, token trees, and the tree attention mask that verifies a whole tree in one pass.",
     "look": "Look first at the tree: every box is a drafted token, the green path is what the target accepted "
             "in ONE forward pass, and the mask beside it is why that works.",
     "tries": [
         ("Static against dynamic", "A static tree keeps the same shape every step; a dynamic one grows where "
                                    "the head is confident.", {"tree_kind": "static"}),
         ("A bigger tree", "64 tokens, depth 6: more chances to match, a costlier verify pass.",
          {"tree_auto": False, "total_tokens": 64, "tree_depth": 6}),
     ]},
    {"page": "compare", "title": "Compare strategies",
     "teaches": "Strategies side by side on one prompt and seed, with honest metrics.",
     "look": "Look first at 'same text as reference': the greedy-verified methods must say yes against greedy in "
             "column 1; only the speed may differ.",
     "tries": [
         ("Fast methods only", "Greedy, speculative, prompt lookup and EAGLE on 32 tokens: same text, different "
                               "speed.", {"cmp_max_new": 32, "cmp_cols": 4, "c1": "greedy", "c2": "speculative",
                                          "c3": "speculative:draft=prompt-lookup", "c4": "eagle"}),
         ("Beam with and without pruning", "Beam k = 6 beside beam k = 6 with rp 0.6 and mc 3: the same best "
                                           "output for fewer candidates?",
          {"cmp_max_new": 24, "cmp_cols": 3, "c1": "greedy", "c2": "beam:num_beams=6",
           "c3": "beam:num_beams=6,rp=0.6,mc=3"}),
     ]},
]
LOOK_FIRST = {step["title"]: step["look"] for step in LECTURE}

# The glossary page: every metric and term the app shows, with the definition the app computes it by.
GLOSSARY = [
    ("Scores and probabilities", [
        ("score", "Score (log-probability)", "Natural-log probability. A token's log p is log softmax(logits) at its "
         "id; a hypothesis scores the sum of its tokens' log p (beam search). Higher is better; 0 is certain."),
        ("entropy", "Entropy", "−Σ p log p of a next-token distribution, in nats: 0 when one token has all the mass, "
         "log V when all V tokens are equally likely."),
        ("temperature", "Temperature T", "The logits are divided by T before the softmax: T < 1 sharpens the "
         "distribution, T > 1 flattens it."),
        ("top-k", "Top-k, top-p, min-p", "Processors that cut tokens (their probability becomes 0, the rest is "
         "renormalised): top-k keeps the k most likely; top-p the smallest most-likely set whose mass reaches p; "
         "min-p the tokens with p ≥ min-p × the largest p."),
    ]),
    ("Checking a sampler", [
        ("tv-distance", "TV distance", "Total-variation distance between two distributions, ½ Σ |p − q|: the "
         "largest difference in probability they give any set of tokens. 0 = identical; an empirical histogram of "
         "M draws from p has TV about √(V / M) / 2 from sampling noise alone."),
        ("chi-square", "Chi-square test", "Compares counts with the exact probabilities; a p-value that is not tiny "
         "(say > 0.001) means the counts are consistent with the sampler being exact."),
        ("gumbel-max", "Gumbel-max", "argmax(logits + Gumbel noise) is an exact sample from softmax(logits); reusing "
         "the same noise for every draw is the notes' pitfall (the same token every time)."),
        ("alias", "Alias method (Vose)", "A table built once in O(k) from a distribution over k outcomes; each draw "
         "then costs O(1): worth it for many draws from ONE distribution, not for one draw per new distribution."),
    ]),
    ("Beam search", [
        ("frontier", "Frontier", "The running beams after a step (at most k), best first; each is fed to the model "
         "at the next step (one row of the forward)."),
        ("pruning", "Pruning rules (Freitag & Al-Onaizan)", "Relative rp: drop a candidate with P ≤ rp × P(best); "
         "absolute ap: score ≤ best score − ap; relative local rpl: its last token's p ≤ rpl × the best last-token "
         "p; max per node mc: at most mc survivors share a parent. The best candidate is never pruned."),
        ("hypotheses-fed", "Hypotheses fed", "Rows fed to the model, summed over steps: what pruning saves."),
        ("distinct-n", "Distinct-n", "Unique n-grams ÷ all n-grams over a set of outputs: 1 = no repetition."),
        ("overlap", "Pairwise overlap", "The mean share of bigrams two outputs of the same method have in common: "
         "high = the method keeps saying the same thing across seeds."),
    ]),
    ("Speculative decoding and EAGLE", [
        ("target-forward", "Target forward (verify step)", "One pass of the big model. Plain decoding makes one per "
         "token; a speculative or EAGLE step makes one to verify all its drafts at once. The first step of EAGLE "
         "(reading the prompt) is a forward too but no verify step."),
        ("acceptance-rate", "Acceptance rate", "A / D: accepted drafted tokens over all drafted tokens. It does NOT "
         "count the token the target adds itself, and only drafts that were emitted count (none after an EOS)."),
        ("tau", "Mean accepted length τ", "(A + S) / S over S verify steps: tokens emitted per target forward, "
         "the target's own token (correction or bonus) included, so plain decoding has τ = 1.00. Without the bonus "
         "token it would be A / S, which some engines report instead."),
        ("alpha", "α and c (the theory)", "α: the chance one drafted token is accepted, measured at N = 1; c: the "
         "draft's time per drafted token over the target's time per token. The theory's speed-up (1 − α^(N+1)) / "
         "((1 − α)(N c + 1)) assumes independent acceptances and a verify pass that costs one forward."),
        ("speed-up", "Speed-up (measured in the same run)", "Tokens/s of the method ÷ tokens/s of plain target "
         "decoding of the same prompt, length, device and dtype, timed in the same session (here: next to each "
         "other), never against a figure from elsewhere."),
        ("token-tree", "Token tree, tree attention mask", "EAGLE drafts several continuations at once as a tree; "
         "the target verifies all of them in one forward, each node attending only to the prefix, itself and its "
         "ancestors (the tree attention mask), not to its siblings' branches."),
        ("draft-vocabulary", "Draft vocabulary V_d", "The draft (or EAGLE-3 head) proposes only the V_d most frequent "
         "answer tokens: a smaller output layer, cheaper steps; the target still verifies over its whole "
         "vocabulary, and lossless sampling treats q as 0 outside V_d."),
        ("ttt", "Training-time test", "EAGLE-3's training: the head is fed its own predictions for several unrolled "
         "steps, so it learns to draft deep into a tree as it will be used."),
    ]),
]


def gloss(anchor: str) -> str:
    """A link to a glossary entry, for a metric's help text."""
    assert any(a == anchor for _, entries in GLOSSARY for a, _, _ in entries), anchor
    return f" [Glossary →](/glossary#{anchor})"
