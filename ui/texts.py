"""The structure of the app's longer texts: the Home lecture path (which page, which experiments and the
controls each one sets) and the glossary's sections and entries. The words themselves live in the catalogues
(ui/locales/en.py, ui/locales/zh.py) under stable ids; these functions return them in the session's language.
"""
from ui.i18n import t

# The guided lecture path (Home): each page and the controls each of its "Try it" experiments sets (validated
# like any widget value). The words: lecture.<page>.teaches / .look / .try<i> / .try<i>.what.
LECTURE_PATH = [
    ("sampling", [{"temperature": 0.3}, {"temperature": 2.0}, {"pitfall_steps": 2000}]),
    ("sampling_cost", [{"cost_budget": 0.4}]),
    ("beam", [{"use_rp": True, "use_ap": True, "use_rpl": True, "use_mc": True},
              {"use_rp": True, "literal_rp": True}, {"stochastic": True}]),
    ("speculative", [{"n_auto": False, "n_draft": 8}, {"rule": "topk", "verify_k": 3, "drift_k": 3},
                     {"draft_source": "prompt-lookup"}]),
    ("eagle", [{"tree_kind": "static"}, {"tree_auto": False, "total_tokens": 64, "tree_depth": 6}]),
    ("compare", [{"cmp_max_new": 32, "cmp_cols": 4, "c1": "greedy", "c2": "speculative",
                  "c3": "speculative:draft=prompt-lookup", "c4": "eagle"},
                 {"cmp_max_new": 24, "cmp_cols": 3, "c1": "greedy", "c2": "beam:num_beams=6",
                  "c3": "beam:num_beams=6,rp=0.6,mc=3"}]),
]

# The glossary page: every metric and term the app shows (glossary.<anchor> the term, glossary.<anchor>.text the
# definition the app computes it by), in sections (glossary.section.<id>).
GLOSSARY_SECTIONS = [
    ("scores", ("score", "entropy", "temperature", "top-k")),
    ("samplers", ("tv-distance", "chi-square", "gumbel-max", "alias")),
    ("beam", ("frontier", "pruning", "hypotheses-fed", "distinct-n", "overlap")),
    ("spec", ("target-forward", "acceptance-rate", "tau", "alpha", "speed-up", "token-tree", "draft-vocabulary",
              "ttt")),
]


def lecture() -> list[dict]:
    """The lecture path in the session's language: page, title, teaches, look, tries [(label, what, settings)]."""
    return [{"page": page, "title": t(f"page.{page}.title"), "teaches": t(f"lecture.{page}.teaches"),
             "look": t(f"lecture.{page}.look"),
             "tries": [(t(f"lecture.{page}.try{i}"), t(f"lecture.{page}.try{i}.what"), settings)
                       for i, settings in enumerate(tries)]}
            for page, tries in LECTURE_PATH]


def look_first(page: str) -> str | None:
    """The page's "look at this first" line (None for a page off the lecture path)."""
    return t(f"lecture.{page}.look") if any(p == page for p, _ in LECTURE_PATH) else None


def glossary() -> list[tuple[str, list[tuple[str, str, str]]]]:
    """[(section, [(anchor, term, definition)])] in the session's language."""
    return [(t(f"glossary.section.{sid}"), [(a, t(f"glossary.{a}"), t(f"glossary.{a}.text")) for a in anchors])
            for sid, anchors in GLOSSARY_SECTIONS]


def gloss(anchor: str) -> str:
    """A link to a glossary entry, for a metric's help text."""
    assert any(anchor in anchors for _, anchors in GLOSSARY_SECTIONS), anchor
    return t("glossary.link", anchor=anchor)


def token_unit(n: int) -> str:
    """"token" or "tokens" after a count n (the step lines of the Speculative and EAGLE pages)."""
    return t("spec.unit.one" if n == 1 else "spec.unit.many")


def code_token(text: str) -> str:
    """A token for a Markdown code span in a sentence (`` `{token}` ``): its spaces no-break, so a line never wraps
    inside it (" ocean" left an empty grey box at a line's end and "ocean" on the next)."""
    return text.replace(" ", "\u00a0")
