"""Beam search with Freitag & Al-Onaizan pruning, step by step, and the hybrid sample-then-beam."""
import streamlit as st

from decoding_core.settings import (EARLY_STOPPING, EOS_POLICIES, SAMPLERS, Beam, BeamSettings, SamplingSettings,
                                    StochasticBeam)
from decoding_core.strategies import build_decoder, describe
from decoding_core.prompts import heldout_instructions
from decoding_core.studies import beam as study
from decoding_core.studies.pruning import FIDELITY, GRID, pruning_sweep
from ui.controls import Controls, Param, choice_ids, stepper
from ui.i18n import err_text, say, t
from ui.lab import chart, metric_rows, open_page, table, tree_chart
from ui.export import download_rows, download_run, tree_downloads
from ui.pin import Snapshot, pin_panel
from ui.progress import kept, measure
from ui.texts import code_token, gloss
from viz.beam import (candidate_rows, frontier_rows, nbest_rows, pruning_tradeoff_figure, search_graph, step_rows,
                      to_dot)
from viz.beam import pruning_rows as sweep_rows
from viz.tables import diversity_rows, pruning_rows

WINDOWS, SHOW_OFF = ("last 4 steps", "whole search"), ("last", "none", "all")
P = Controls([
    Param("k", 4, "p.k", 1, 16),
    Param("beam_max_new", 16, "p.beam_max_new", 2, 64),
    Param("eos_policy", "finished-set", "p.eos_policy", choices=EOS_POLICIES,
          help="p.eos_policy.help"),
    Param("length_penalty", 1.0, "p.length_penalty", -2.0, 3.0, 0.1, help="p.length_penalty.help"),
    Param("early_stopping", "false", "p.early_stopping", choices=tuple(EARLY_STOPPING),
          help="p.early_stopping.help"),
    Param("use_rp", False, "p.use_rp", help="p.use_rp.help"),
    Param("use_ap", False, "p.use_ap", help="p.use_ap.help"),
    Param("use_rpl", False, "p.use_rpl", help="p.use_rpl.help"),
    Param("use_mc", False, "p.use_mc", help="p.use_mc.help"),
    Param("rp", 0.6, "p.rp", 0.01, 1.0, 0.01),
    Param("ap", 2.5, "p.ap", 0.0, 20.0, 0.1),
    Param("rpl", 0.02, "p.rpl", 0.001, 1.0, 0.001, fmt="%.3f"),
    Param("mc", 3, "p.mc", 1, 16),
    Param("literal_rp", False, "p.literal_rp",
          help="p.literal_rp.help"),
    Param("prefix_m", 0, "p.prefix_m", 0, 16,
          help="p.prefix_m.help"),
    Param("prefix_sampler", "multinomial", "p.prefix_sampler", choices=SAMPLERS),
    Param("prefix_temperature", 1.0, "p.prefix_temperature", 0.05, 3.0, 0.05),
    Param("beam_window", "last 4 steps", "p.beam_window", choices=WINDOWS, widget="radio",
          labels=choice_ids("beam_window", WINDOWS), help="p.beam_window.help"),
    Param("beam_show_off", "last", "p.beam_show_off", choices=SHOW_OFF, widget="radio",
          labels=choice_ids("beam_show_off", SHOW_OFF), help="p.beam_show_off.help"),
    Param("stochastic", False, "p.stochastic",
          help="p.stochastic.help"),
    Param("sbs_temperature", 1.0, "p.sbs_temperature", 0.05, 3.0, 0.05),
    Param("div_seeds", 4, "p.div_seeds", 2, 8),
    Param("div_m", 3, "p.div_m", 1, 16),
])
RULES = (("rp", "use_rp"), ("ap", "use_ap"), ("rpl", "use_rpl"), ("mc", "use_mc"))


def controls() -> Beam:
    ss = st.session_state
    with st.container(border=True):
        s1, s2 = st.columns([3, 1])
        P.show("stochastic", s1)
        P.show("sbs_temperature", s2, disabled=not ss.stochastic)
        off = ss.stochastic  # pruning and the EOS policy belong to (deterministic) beam search
        c = st.columns(5)
        for col, key in zip(c, ("k", "beam_max_new", "eos_policy", "length_penalty", "early_stopping")):
            P.show(key, col, disabled=(key in ("length_penalty", "early_stopping") and ss.eos_policy == "in-beam")
                   or (off and key in ("eos_policy", "length_penalty", "early_stopping")))
        st.markdown(t("beam.pruning"))
        for col, (rule, use) in zip(st.columns(4), RULES):
            P.show(use, col, disabled=off)
            P.show(rule, col, disabled=off or not ss[use])
        P.show("literal_rp", disabled=off or not ss.use_rp)
        h = st.columns(3)
        P.show("prefix_m", h[0], disabled=off)
        P.show("prefix_sampler", h[1], disabled=ss.prefix_m == 0)
        P.show("prefix_temperature", h[2], disabled=ss.prefix_m == 0)
    on = {rule: ss[rule] if ss[use] else None for rule, use in RULES}
    beam = BeamSettings(ss.k, ss.eos_policy, float(ss.length_penalty), EARLY_STOPPING[ss.early_stopping], **on,
                        literal_rp=ss.use_rp and ss.literal_rp, sample_prefix=ss.prefix_m)
    return Beam(beam, SamplingSettings(temperature=float(ss.prefix_temperature)), ss.prefix_sampler)


def render() -> None:
    lab, prompt_ids = open_page("beam", P)
    strategy = controls()
    stepped = StochasticBeam(P["k"], P["sbs_temperature"]) if P["stochastic"] else strategy
    run = lab.run(P["beam_max_new"], backend="eager")
    try:
        build_decoder(lab.lm, stepped, run)  # a bad combination is reported here, not mid-run
    except ValueError as exc:
        P.sync()
        st.error(t("beam.bad", why=err_text(exc)))
        st.stop()
    if P["stochastic"]:
        st.markdown(t("beam.sbs"))
    search(lab, stepped, run, prompt_ids)

    st.header(t("beam.h.diversity"))
    st.markdown(t("beam.diversity"))
    d1, d2, d3 = st.columns(3)
    P.show("div_seeds", d1)
    P.show("div_m", d2)
    P.sync()
    key = (lab.key, strategy, run, P["div_seeds"], P["div_m"])
    if d3.button(t("beam.measure_diversity"), type="primary", width="stretch"):
        measure("diversity", key, lambda progress, stop: study.diversity(
            lab.lm, prompt_ids, strategy, run, P["div_seeds"], P["div_m"], progress=progress, should_stop=stop))
    div = kept("diversity", key, t("beam.measure_diversity"))
    if div:
        table(st, diversity_rows(div))
        with st.expander(t("beam.outputs")):
            for row in div.rows:
                st.markdown(f"**{say(row.method)}**")
                for text in row.outputs:
                    st.text(text)
        st.caption(t("beam.measured_in", s=div.wall_s, device=lab.lm.device.type))
    tuning(lab, strategy, run, prompt_ids)


def use_thresholds(settings: dict) -> None:
    """Button callback: switch the pruning controls to a sweep row's thresholds (before the widgets draw)."""
    ss = st.session_state
    for rule, use in RULES:
        ss[use] = settings[rule] is not None
        if settings[rule] is not None:
            ss[rule] = settings[rule]
    ss["stochastic"] = False


def tuning(lab, strategy: Beam, run, prompt_ids) -> None:
    st.header(t("beam.h.tuning"))
    st.markdown(t("beam.tuning"))
    prompts = [prompt_ids] + [lab.lm.encode(t, chat=True) for t in heldout_instructions(3)]
    key = (lab.key, strategy.beam.without_pruning(), run)
    if st.button(t("beam.measure_thresholds"), type="primary"):
        measure("pruning", key, lambda progress, stop: pruning_sweep(lab.lm, prompts, strategy, run,
                                                                     progress=progress, should_stop=stop))
    sweep = kept("pruning", key, t("beam.measure_thresholds"))
    if not sweep:
        st.caption(t("beam.tuning.about", n=len(prompts) * (len(GRID) + 2) + 1, settings=len(GRID),
                               prompts=len(prompts)))
        return
    if not sweep.rows:  # stopped before any setting was measured: nothing to chart or recommend
        st.info(t("beam.none_measured"))
        return
    chart(st, pruning_tradeoff_figure(sweep, FIDELITY), "beam-pruning-tradeoff", width="stretch")
    rec = sweep.recommendation
    if rec:
        chosen = ", ".join(f"{k} = {v:g}" for k, v in rec["settings"].items() if v is not None)
        st.success(t("beam.recommended", chosen=chosen, saved=rec["expansions_saved"], kept=rec["best_unchanged"],
                     prompts=sweep.prompts))
        st.button(t("beam.use_recommended"), on_click=use_thresholds, args=(rec["settings"],))
    else:
        st.warning(t("beam.no_setting", fidelity=FIDELITY))
    if sweep.reused:
        st.caption(t("beam.reused", reused=sweep.reused, searches=sweep.searches))
    with st.expander(t("numbers")):
        table(st, sweep_rows(sweep))
        download_rows(t("numbers.download"), sweep_rows(sweep), "beam-pruning-sweep")


@st.fragment
def search(lab, strategy, run, prompt_ids):
    lm = lab.lm
    state = stepper("beam", (lab.key, strategy, run), lambda: build_decoder(lm, strategy, run).start(prompt_ids))
    dec, cursor = state["decoder"], state["cursor"]
    shown = dec.history[: cursor + 1]
    if not shown:
        st.info(t("beam.press_step"))
        return
    step = shown[-1]
    st.subheader(t("beam.step", n=step.index + 1) + (t("beam.step.sampled") if step.kind == "sample" else ""))
    w1, w2 = st.columns(2)  # the tree spans the page (readable from the back of a room); the tables below
    window = P.show("beam_window", w1)
    show_off = P.show("beam_show_off", w2)
    P.sync()
    tail = "".join(lm.token_text(t) for t in prompt_ids[-6:])  # glyphs: a newline or byte token stays visible
    dot = to_dot(search_graph(shown, "…" + tail, show_off, 4 if window == "last 4 steps" else None))
    tree_chart(st, dot)
    tree_downloads(dot, "beam-tree", t("beam.graph"))
    st.caption(t("beam.graph"))
    g2, g3 = st.columns([3, 2])
    with g2:
        if step.kind == "sample":
            st.markdown(t("beam.sampled", token=code_token(step.sample.token_text), p=step.sample.prob,  # Beam only
                          sampler=t(f"viz.series.{strategy.sampler}"), T=strategy.sampling.temperature,
                          m=strategy.beam.sample_prefix))
        else:
            step_tables(step, lm)
    with g3:
        m = shown_totals(shown)  # up to the step shown (after Back too), not the decoder's latest
        metric_rows(st, [  # two a row: three cut "Hypotheses fed" short at 1280 px
            (t("beam.m.fed"), step.rows_expanded, t("beam.m.fed.help")),
            (t("beam.m.total"), m["hypotheses_expanded"], t("beam.m.total.help") + gloss("hypotheses-fed")),
            (t("beam.m.candidates"), sum(1 for c_ in step.candidates if c_.status != "carried")),
            (t("beam.m.pruned"), sum(1 for c_ in step.candidates if c_.status == "pruned")),
            (t("beam.m.forwards"), m["target_forwards"]),
            (t("beam.m.time"), f"{m['wall_s']:.2f} s")])
    if step.kind != "sample" and step.finished:  # full width: its texts and scores do not fit beside the metrics
        st.markdown(t("beam.finished_set"))
        table(st, nbest_rows(step.finished, lm.decode, True, lm.eos_ids))
    hyps = dec.hypotheses() if dec.done and cursor == len(dec.history) - 1 else []
    pruned = sum(1 for s_ in shown if s_.kind == "beam" for c_ in s_.candidates if c_.status == "pruned")
    download_run("beam", lab, strategy, run, dec, step_rows(shown),
                 t("beam.steps.help"))
    pin_panel("beam", Snapshot(t("pin.label", what=beam_label(strategy), n=step.index + 1), "dot", dot, (
        (t("beam.m.total"), str(m["hypotheses_expanded"])), (t("beam.pin.pruned"), str(pruned)),
        (t("beam.pin.best_score"), f"{hyps[0].score:.3f}" if hyps else "–"),
        (t("beam.pin.best_text"), lm.decode(hyps[0].tokens) if hyps else "–"))))
    if dec.done and cursor == len(dec.history) - 1:
        finish(lab, strategy, run, state, prompt_ids)


def shown_totals(shown) -> dict:
    """The metrics through the steps shown: each step scored the rows of one model forward (the prompt's, then the
    beams'), so rows fed, forwards and time add up step by step; at the last step they are the decoder's totals (the
    decoder already counts the forward over the next beams, which the next step will score)."""
    return {"hypotheses_expanded": sum(s.rows_expanded for s in shown), "target_forwards": len(shown),
            "wall_s": sum(s.elapsed_s for s in shown)}


def beam_label(strategy) -> str:
    """The strategy in words with the pruning thresholds that are on (for the A / B labels)."""
    if isinstance(strategy, StochasticBeam):
        return say(describe(strategy))
    b = strategy.beam
    rules = ", ".join(f"{name} {getattr(b, name):g}" for name in ("rp", "ap", "rpl", "mc") if getattr(b, name) is not None)
    label = t("beam.label", k=b.num_beams)
    if rules:
        label += t("beam.label.rules", rules=rules) + (t("beam.label.literal") if b.literal_rp else "")
    else:
        label += t("beam.label.none")
    return label + (t("beam.label.prefix", m=b.sample_prefix) if b.sample_prefix else "")


def step_tables(step, lm) -> None:
    st.markdown(t("beam.frontier"))
    if step.frontier:
        table(st, frontier_rows(step, lm.decode))
    else:
        st.caption(t("beam.no_frontier"))
    with st.expander(t("beam.all_candidates", n=len([c for c in step.candidates if c.status != "carried"]))):
        table(st, candidate_rows(step))


def finish(lab, strategy, run, state, prompt_ids) -> None:
    st.subheader(t("beam.result"))
    dec = state["decoder"]
    hyps = dec.hypotheses()
    if not hyps:
        st.warning(t("beam.empty"))
        return
    if isinstance(strategy, StochasticBeam):
        st.markdown(t("beam.sampled_n", n=len(hyps)))
        table(st, nbest_rows(hyps, lab.lm.decode, False, lab.lm.eos_ids))
        return
    st.markdown(t("beam.nbest"))
    table(st, nbest_rows(hyps, lab.lm.decode, strategy.beam.eos_policy == "finished-set", lab.lm.eos_ids))
    if strategy.beam.pruning:
        if state.get("savings") is None:
            with st.spinner(t("beam.running_unpruned")):
                state["savings"] = study.pruning_savings(lab.lm, prompt_ids, strategy, run, pruned=dec)
        sv = state["savings"]
        st.markdown(t("beam.saved.title"))
        table(st, pruning_rows(sv))
        st.markdown(t("beam.saved", saved=sv.saved) + (t("beam.saved.same") if sv.same_best else
                                                        t("beam.saved.different", text=sv.rows[1].best_text)))
        st.markdown(saved_time_text(sv, strategy.beam.eos_policy == "finished-set"))


def saved_time_text(sv, finished_set: bool) -> str:
    """The two searches' times side by side, and why fewer hypotheses fed need not mean less time: with the same
    number of forwards, each over fewer rows, the time hardly changes where a forward over a few rows costs about
    what one over one row does (this CPU: the sizing's measured cost curve, flat to ~6 rows); a gap of 15% or more
    is left as measured. Under the finished-set policy every step ranks a fixed number (2k) of continuations, so
    the candidates column is equal in both rows: said when it is."""
    pruned, plain = sv.rows
    text = t("beam.saved.time", a=pruned.wall_s, b=plain.wall_s)
    if pruned.forwards == plain.forwards and pruned.hypotheses_fed < plain.hypotheses_fed \
            and abs(1 - pruned.wall_s / max(plain.wall_s, 1e-9)) < 0.15:
        text += t("beam.saved.time_same", n=plain.forwards)
    if finished_set and pruned.candidates_scored == plain.candidates_scored:
        text += t("beam.saved.candidates")
    return text


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
