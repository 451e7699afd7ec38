"""Strategies side by side on one prompt and seed, each column with its own settings, with honest metrics.

Each column's strategy lives in the link as one line (decoding_core/spec.py), e.g. ``c3=beam:num_beams=6,rp=0.6``;
``cmp_cols`` says how many columns show and ``cmp_pins`` which are pinned (their result is kept while the others
are run again)."""
from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from decoding_core.settings import COPY_MAX, DRAFT_KINDS, HEADS, LOOKUP_MAX, RULES, SAMPLERS, TREES
from decoding_core.spec import KINDS, field_value, parse_strategy, strategy_spec, with_fields
from decoding_core.strategies import describe
from decoding_core.studies.compare import Comparison, compare
from ui import loaders, params
from ui.controls import Controls, Param
from ui.i18n import err_text, lang, say, t, translated_choices
from ui.export import download_comparison, download_rows
from ui.lab import busy_warning_of, chart, open_page, table
from ui.progress import measure, stopped_note
from viz.compare import metrics_figure, output_html
from viz.tables import compare_csv_rows, compare_rows, split_label

MAX_COLUMNS = 6
DEFAULTS = ("greedy", "sample:temperature=0.8,top_p=0.95", "beam", "speculative", "speculative:draft=prompt-lookup",
            "eagle")
KIND_LABELS = {kind: f"cmp.kind.{kind}" for kind in KINDS}  # catalogue ids
P = Controls([
    Param("cmp_max_new", 32, "p.cmp_max_new", 4, 256),
    Param("cmp_cols", 4, "p.cmp_cols", 2, MAX_COLUMNS),
    Param("cmp_seeds", 1, "p.cmp_seeds", 1, 5, help="p.cmp_seeds.help", glossary="overlap"),
])


@dataclass(frozen=True)
class Field:
    """One setting a column shows: its path in the strategy ("sampling.temperature"), label (a catalogue id) and
    range or choices; ``off`` is the widget value that stands for None (the rule is off); ``needs``: the path of a
    field that must be on (non-zero) for this one to apply; while it is not, this one is drawn disabled and off
    (False), as the EAGLE page draws its corpus toggle."""

    path: str
    label: str
    lo: float | None = None
    hi: float | None = None
    step: float | None = None
    choices: tuple | None = None
    off: object = "no off value"
    needs: str = ""
    labels: tuple = ()  # (value, catalogue id) pairs: the choices' texts (else ``SHOWN``'s, else the value)


T = Field("sampling.temperature", "p.temperature", 0.05, 3.0, 0.05)
FIELDS = {
    "greedy": (Field("sampling.repetition_penalty", "p.rep", 1.0, 2.0, 0.05, off=1.0),),
    "sample": (T, Field("sampling.top_k", "cmp.f.top_k", 0, 200, 1, off=0),
               Field("sampling.top_p", "cmp.f.top_p", 0.01, 1.0, 0.01, off=1.0),
               Field("sampling.min_p", "cmp.f.min_p", 0.0, 0.5, 0.01, off=0.0),
               Field("sampler", "p.step_sampler", choices=SAMPLERS,
                     labels=tuple((s, f"viz.series.{s}") for s in SAMPLERS))),  # as the Sampling page's choices
    "beam": (Field("beam.num_beams", "p.k", 1, 16, 1), Field("beam.rp", "cmp.f.rp", 0.0, 1.0, 0.05, off=0.0),
             Field("beam.ap", "cmp.f.ap", 0.0, 20.0, 0.5, off=0.0),
             Field("beam.rpl", "cmp.f.rpl", 0.0, 1.0, 0.05, off=0.0),
             Field("beam.mc", "cmp.f.mc", 0, 16, 1, off=0),
             Field("beam.sample_prefix", "cmp.f.sample_prefix", 0, 16, 1), replace(T, label="p.prefix_temperature")),
    "stochastic-beam": (Field("num_beams", "cmp.f.num_beams", 1, 16, 1),
                        Field("temperature", "p.temperature", 0.05, 3.0, 0.05)),
    "speculative": (Field("draft", "p.draft_source", choices=DRAFT_KINDS,
                          labels=tuple((k, f"p.draft_source.{k}") for k in DRAFT_KINDS)),
                    Field("n_draft", "p.n_draft", choices=("auto",) + tuple(range(1, 13))),
                    Field("rule", "cmp.f.rule", choices=RULES, labels=tuple((r, f"p.rule.{r}") for r in RULES)),
                    Field("verify_k", "cmp.f.verify_k", 1, 16, 1),
                    Field("copy", "p.copy", 0.0, COPY_MAX, 0.05),
                    Field("lookup", "p.spec_lookup", 0, LOOKUP_MAX, 1),
                    Field("runner_up", "p.runner_up", choices=(False, True)), replace(T, label="cmp.f.t_sampling")),
    "eagle": (Field("head", "p.eagle_head", choices=("default",) + HEADS, off="default",  # not None: a selectbox
                    labels=tuple((h, f"p.eagle_head.{h}") for h in HEADS)),              # shows None as empty
              Field("tree", "p.tree_kind", choices=TREES, labels=tuple((k, f"p.tree_kind.{k}") for k in TREES)),
              Field("total_tokens", "p.total_tokens", choices=("auto", 8, 16, 24, 32, 48, 64, 96, 128)),
              Field("depth", "p.tree_depth", choices=("auto",) + tuple(range(1, 13))),
              Field("top_k", "cmp.f.tree_top_k", 1, 16, 1), Field("lookup", "p.eagle_lookup", 0, LOOKUP_MAX, 1),
              Field("corpus", "p.eagle_corpus", choices=(False, True), needs="lookup"),
              Field("sample", "cmp.f.sample", choices=(False, True), labels=((False, "cmp.shown.greedy"),)),
              replace(T, label="cmp.f.t_eagle")),
}
SHOWN = {"default": "cmp.shown.default", False: "cmp.shown.no", True: "cmp.shown.yes", "auto": "cmp.shown.auto"}  # ids


def _key(i: int, kind: str, f: Field) -> str:
    return f"cmp{i}_{kind}_{f.path}"


def _widget_value(strategy, f: Field):
    value = field_value(strategy, f.path)
    return f.off if value is None and f.off != "no off value" else value


def _apply(i: int, text: str) -> None:
    """Set column i's widgets from a spec line (a bad one: a warning and the column's default)."""
    ss = st.session_state
    try:
        strategy = parse_strategy(text)
    except ValueError as exc:
        strategy = _without_bad_settings(i, text)
        if strategy is None:
            params.warn(t("warn.link_column", i=i, raw=params.echo(text), why=exc, default=repr(DEFAULTS[i - 1])))
            strategy = parse_strategy(DEFAULTS[i - 1])
    strategy = _within_widgets(i, strategy)
    ss[f"cmp{i}_kind"], ss[f"_cmp{i}_base"] = strategy.name, strategy
    for f in FIELDS[strategy.name]:
        ss[_key(i, strategy.name, f)] = _widget_value(strategy, f)
    ss[f"c{i}"] = ss[f"_cmp{i}_applied"] = strategy_spec(strategy)


def _without_bad_settings(i: int, text: str):
    """A link's line whose settings fail the strategy's own checks one by one (``n_draft=500``: N above 32; a beam
    width 0): the line without them, each with a warning, as ``_within_widgets`` treats a value outside its
    widget. None where the kind is unknown, no single setting fails alone, or the rest still fails together (the
    whole column then falls back)."""
    kind, _, rest = (x.strip() for x in text.partition(":"))
    if kind not in FIELDS:
        return None
    items = [x.strip() for x in rest.split(",") if x.strip()]

    def fails(*line) -> ValueError | None:
        try:
            parse_strategy(f"{kind}: {', '.join(line)}")
        except ValueError as exc:
            return exc
        return None

    alone = {item: fails(item) for item in items}
    good = [item for item in items if alone[item] is None]
    bad = [item for item in items if alone[item] is not None and fails(*good, item)]  # a corpus branch needs
    if not bad:                                                                        # the line's lookup: kept
        return None
    by_name = {f.path.rpartition(".")[2]: f for f in FIELDS[kind]}
    named = [(item, *(x.strip() for x in item.partition("=")[::2])) for item in bad]
    kept = [item for item in items if item not in bad]
    if any(name not in by_name for _, name, _ in named) or fails(*kept):  # an unknown name, or the rest fails
        return None                                                        # too: the whole column's reason says it
    strategy = parse_strategy(f"{kind}: {', '.join(kept)}")
    for item, name, raw in named:  # the value used: the kind's default, or the line's own where it says it twice
        params.warn(t("warn.link_field", i=i, field=name, raw=params.echo(raw), why=alone[item],
                      value=_widget_value(strategy, by_name[name])))
    return strategy


def _outside(f: Field, value) -> str | None:
    """Why a link's value lies outside what column field ``f`` offers (None when it does not): a number outside
    the slider's range or the numbers of a choice (a draft model's id or folder is left to the run, which says
    whether it loads)."""
    if value is None or value == f.off or isinstance(value, bool):
        return None
    numbers = [c for c in f.choices or () if isinstance(c, int) and not isinstance(c, bool)]
    lo, hi = (f.lo, f.hi) if f.choices is None else (min(numbers, default=None), max(numbers, default=None))
    if isinstance(value, (int, float)) and lo is not None and not lo <= value <= hi:
        return t("why.range", lo=lo, hi=hi)
    return None


def _within_widgets(i: int, strategy):
    """The strategy with each field outside its widget's range put back to the kind's default, with a warning per
    field (as the pages do with a link's value out of range): a link cannot run "k 999" where the widget stops
    at 16."""
    default, changes = KINDS[strategy.name](), {}
    for f in FIELDS[strategy.name]:
        value = field_value(strategy, f.path)
        why = _outside(f, value)
        if why:
            changes[f.path] = field_value(default, f.path)
            params.warn(t("warn.link_field", i=i, field=f.path.rpartition(".")[2], raw=params.echo(str(value)),
                          why=why, value=_widget_value(default, f)))
    if not changes:
        return strategy
    try:
        return with_fields(strategy, changes)
    except ValueError as exc:  # a default that does not fit the link's other fields (a corpus branch needs a lookup)
        params.warn(t("warn.link_column", i=i, raw=params.echo(strategy_spec(strategy)), why=exc,
                      default=repr(strategy_spec(default))))
        return default


def seed_columns() -> None:
    """Once per session each column's line from the link (or the default); again whenever something (a lecture
    "Try it") puts a new line in session state."""
    ss = st.session_state
    if "_cmp_pins" not in ss:
        raw = st.query_params.get("cmp_pins", "")
        ss["_cmp_pins"] = {int(x) for x in raw.split(",") if x.strip().isdigit() and 1 <= int(x) <= MAX_COLUMNS}
    for i in range(1, MAX_COLUMNS + 1):
        if f"c{i}" not in ss:
            ss[f"c{i}"] = st.query_params.get(f"c{i}", DEFAULTS[i - 1])
        if ss.get(f"_cmp{i}_applied") != ss[f"c{i}"]:
            _apply(i, ss[f"c{i}"])


def _field(where, i: int, kind: str, f: Field, disabled: bool):
    key = _key(i, kind, f)
    value = st.session_state[key]
    if f.choices is not None:
        choices = list(f.choices) + ([value] if value not in f.choices else [])  # e.g. a draft model id from a link
        ids = {(type(v), v): id_ for v, id_ in (*SHOWN.items(), *f.labels)}  # by type too: 1 is not True
        return where.selectbox(t(f.label), choices, key=translated_choices(key), disabled=disabled,
                               format_func=lambda v, here=lang(): t(ids[type(v), v], here) if (type(v), v) in ids
                               else str(v))
    number = float if isinstance(f.step, float) else int
    lo, hi = min(number(f.lo), value), max(number(f.hi), value)  # never narrower than the value (links are checked)
    return where.slider(t(f.label), number(lo), number(hi), step=number(f.step), key=key, disabled=disabled)


def column_editor(i: int, where, captions: dict | None = None) -> tuple[object | None, str | None]:
    """Column i's kind and settings; returns (strategy, None) or (None, the reason it is not valid). ``captions``
    collects each valid column's (strategy, caption slot) for ``_caption`` to fill again after a run."""
    ss = st.session_state
    if f"cmp{i}_kind" not in ss:  # the column was hidden (its widgets forgotten): back from its line
        _apply(i, ss[f"c{i}"])
    pinned = i in ss["_cmp_pins"]
    with where:
        kind = st.selectbox(t("cmp.column", i=i), list(KINDS), key=translated_choices(f"cmp{i}_kind"),
                            format_func=lambda k, here=lang(): t(KIND_LABELS[k], here), disabled=pinned)
        base = ss[f"_cmp{i}_base"]
        strategy = base if base.name == kind else KINDS[kind]()
        values = {}
        with st.expander(t("cmp.settings"), expanded=False):
            for f in FIELDS[kind]:
                if _key(i, kind, f) not in ss:
                    ss[_key(i, kind, f)] = _widget_value(strategy, f)
                idle = bool(f.needs) and not values[f.needs]  # the field it needs is off: so is this one
                if idle:
                    ss[_key(i, kind, f)] = False
                values[f.path] = _field(st, i, kind, f, pinned or idle)
        st.toggle(t("cmp.pin"), value=pinned, key=f"_cmp{i}_pin_toggle", on_change=_toggle_pin, args=(i,),
                  help=t("cmp.pin.help"))
        try:
            strategy = with_fields(strategy, {f.path: None if values[f.path] == f.off else values[f.path]
                                              for f in FIELDS[kind]})
        except ValueError as exc:
            st.error(t("cmp.column_error", i=i, why=err_text(exc)))
            return None, str(exc)
    ss[f"_cmp{i}_base"] = strategy
    ss[f"c{i}"] = ss[f"_cmp{i}_applied"] = strategy_spec(strategy)
    slot = where.empty()
    _caption(i, strategy, slot)
    if captions is not None:
        captions[i] = (strategy, slot)
    return strategy, None


def _caption(i: int, strategy, slot) -> None:
    """Under column i: its strategy's label; once it has run with these settings, the run's own label, which names
    the sizes measured for this device in place of "auto"."""
    kept = st.session_state.get("_cmp_results", {}).get(i)
    ran = kept is not None and kept[0][3] == strategy_spec(strategy) and not kept[1].error
    slot.caption(say(kept[1].label if ran else describe(strategy)))


def _toggle_pin(i: int) -> None:
    pins = st.session_state["_cmp_pins"]
    pins.symmetric_difference_update({i})


def sync_columns(n: int) -> None:
    """Every shown column's line and the pins into the link (columns past ``n`` are left out)."""
    ss = st.session_state
    for i in range(1, MAX_COLUMNS + 1):
        if i <= n and st.query_params.get(f"c{i}") != ss[f"c{i}"]:
            st.query_params[f"c{i}"] = ss[f"c{i}"]
        elif i > n and f"c{i}" in st.query_params:
            del st.query_params[f"c{i}"]
    pins = ",".join(str(i) for i in sorted(ss["_cmp_pins"]) if i <= n)
    if st.query_params.get("cmp_pins", "") != pins:
        if pins:
            st.query_params["cmp_pins"] = pins
        elif "cmp_pins" in st.query_params:
            del st.query_params["cmp_pins"]


def _study(lab, prompt_ids, run, seeds, columns: list[tuple[int, object]]):
    """A study for ``measure``: run the columns and keep each one's row under its column (before a Stop's rerun:
    the columns finished so far stay)."""
    def study(progress, should_stop):
        # session state is read before the run: a read is one of Streamlit's checkpoints, where a Stop click
        # would be raised (after the study, that would lose what it measured); the dict is then plain Python
        kept = st.session_state.setdefault("_cmp_results", {})
        cmp = compare(lab.lm, prompt_ids, [s for _, s in columns], run, None, loaders.CACHED, progress=progress,
                      should_stop=should_stop, seeds=seeds)
        for (i, strategy), r in zip(columns, cmp.runs):
            kept[i] = ((lab.key, run, seeds, strategy_spec(strategy)), r)
        return cmp
    return study


def render() -> None:
    lab, prompt_ids = open_page("compare", P)
    seed_columns()
    c1, c2, c3 = st.columns(3)
    P.show("cmp_max_new", c1)
    n = P.show("cmp_cols", c2)
    P.show("cmp_seeds", c3)
    P.sync()
    st.markdown(t("compare.intro"))
    columns, bad, captions = [], [], {}
    rows = editor_rows(n, bool(st.session_state.get("present")))
    slots = [col for size in rows for col in st.columns(rows[0])[:size]]  # a short last row keeps the widths
    for i, where in enumerate(slots, 1):
        strategy, err = column_editor(i, where, captions)
        (bad if strategy is None else columns).append((i, strategy))
    sync_columns(n)
    run = lab.run(P["cmp_max_new"])
    seeds = P["cmp_seeds"]
    kept = st.session_state.setdefault("_cmp_results", {})
    pins = st.session_state["_cmp_pins"]
    todo = [(i, s) for i, s in columns if i not in pins or i not in kept]
    if st.button(t("cmp.run_all"), type="primary", disabled=bool(bad) or not todo, help=t("cmp.run_all.help")):
        measure("compare", (lab.key, tuple(todo), run, seeds),
                _study(lab, prompt_ids, run, seeds, todo), label=t("cmp.running"))
        for i, (strategy, slot) in captions.items():
            _caption(i, strategy, slot)  # the sizes just measured
    show_results(lab, prompt_ids, n, columns, run, seeds)


def editor_rows(n: int, present: bool = False) -> list[int]:
    """How many column editors share each row: all ``n`` on one row while a column is wide enough for its longest
    choice ("speculative decoding", "stochastic beams": cut short in 5-6 columns at 1280 px, and in 4 in presentation
    mode's larger type), else rows of at most three (two and two for four)."""
    if n <= (3 if present else 4):
        return [n]
    per_row = 2 if n == 4 else 3
    return [min(per_row, n - start) for start in range(0, n, per_row)]


def _state(i: int, saved_key, current, failed: bool = False) -> str:
    if failed:
        return "error"
    if i in st.session_state["_cmp_pins"]:
        return "pinned"
    return "fresh" if saved_key == current else "stale: settings changed, press Run all"


def show_results(lab, prompt_ids, n: int, columns, run, seeds) -> None:
    lab_key = lab.key
    kept = st.session_state.get("_cmp_results", {})
    spec_of = {i: strategy_spec(s) for i, s in columns}
    shown = [(i, kept[i]) for i in range(1, n + 1) if i in kept]
    if not shown:
        st.info(t("cmp.press_run"))
        return
    label_of = {i: f"{i} · {say(r.label)}" for i, (_, r) in shown}  # as shown: in the session's language
    runs = [replace(r, label=label_of[i], error=say(r.error) if r.error else r.error) for i, (_, r) in shown]
    states = {label_of[i]: _state(i, key, (lab_key, run, seeds, spec_of.get(i)), bool(r.error)) for i, (key, r) in shown}
    cmp = Comparison(tuple(runs), runs[0].label)
    last = st.session_state.get("_result_compare")
    if last is not None:
        stopped_note(last[1])
    if any(s.startswith("stale") for s in states.values()):
        st.warning(t("cmp.stale_warning"), icon=":material/history:")
    plain = next((r for r in runs if r.strategy == "greedy" and not r.error  # plain decoding, run with this model
                  and states[r.label].startswith("fresh")), None)
    busy_warning_of(st, lab.lm, plain, len(prompt_ids or []))  # above the table: read before its speed-ups
    rows = compare_csv_rows(cmp, states)  # numbers for a spreadsheet (the CSV); the table below is for reading
    table(st, compare_rows(cmp, {label: t(f"cmp.state.{s.split(':')[0]}") for label, s in states.items()}, lang()),
          pin="strategy")
    st.caption(t("compare.caption"))
    with st.container(horizontal=True):
        download_comparison(lab, [(i, parse_strategy(r.spec), r, states[label_of[i]], key[1])
                                  for i, (key, r) in shown if not r.error], run, seeds, prompt_ids)
        download_rows(t("cmp.download_table"), rows, "compare-table")
    for r in runs:
        if r.error:  # a column that did not run says why where its output would be, not only in the table's last cell
            st.error(t("cmp.failed", label=r.label, why=r.error), icon=":material/error:")
    ok = [r for r in runs if not r.error]
    if ok:
        parts = [r.label.partition(" · ") for r in ok]  # "2 · speculative (shipped draft, ...)"
        numbers, names = [number for number, _, _ in parts], [split_label(rest)[0] for _, _, rest in parts]
        chart(st, metrics_figure(ok, numbers, names), name="compare-metrics", width="stretch")
        st.caption(t("compare.chart") + t("cmp.glossary") + t("list.sep").join(
            t("glossary.term_link", name=t(name), anchor=anchor) for name, anchor in (
                ("cmp.g.logprob", "score"), ("cmp.g.distinct", "distinct-n"), ("cmp.g.tau", "tau"),
                ("cmp.g.overlap", "overlap"), ("cmp.g.speedup", "speed-up"))) + t("cmp.glossary.end"))
    for row in range(0, len(ok), 3):
        for col, r in zip(st.columns(3), ok[row:row + 3]):
            with col:
                st.markdown(f"**{r.label}** · {t('cmp.state.short.' + states[r.label].split(':')[0])}")
                st.markdown(output_html(r), unsafe_allow_html=True)
                st.caption(t("cmp.spec", spec=r.spec))


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
