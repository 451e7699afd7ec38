"""Speculative decoding: a draft proposes N tokens, the target verifies them in one forward."""
import streamlit as st

from decoding_core.decoders import metrics_so_far
from decoding_core.draft import draft_manifest
from decoding_core.models import ModelLoadError
from decoding_core.settings import COPY_MAX, LOOKUP_MAX, RULES, RunSettings, SamplingSettings, Speculative
from decoding_core.strategies import build_decoder, describe, resolve_sizes
from decoding_core.studies import speculative as study
from ui import loaders, params, results
from ui.controls import Controls, Param, sampling_table, show_sampling, stepper
from ui.i18n import err_text, say, t
from ui.lab import busy_warning, chart, metric_rows, open_page, table
from ui.export import download_rows, download_run
from ui.pin import Snapshot, pin_panel
from ui.progress import kept, measure
from ui.texts import code_token, gloss, token_unit
from viz.eagle import sizing_figure
from viz.speculative import (SOURCE, draft_rows, drift_figure, origin_html, price_figure, residual_figure, step_rows,
                             sweep_explanation, sweep_figure)
from viz.tables import drift_rows, sweep_rows

P = Controls([
    Param("draft_source", "embedded", "p.draft_source", choices=("embedded", "prompt-lookup", "model"),
          labels={"embedded": "p.draft_source.embedded", "prompt-lookup": "p.draft_source.prompt-lookup",
                  "model": "p.draft_source.model"},
          help="p.draft_source.help"),
    Param("draft_model", "", "p.draft_model", help="p.draft_model.help"),
    Param("n_draft", 4, "p.n_draft", 1, 12),
    Param("stop_below", 0.0, "p.stop_below", 0.0, 0.95, 0.05, help="p.stop_below.help"),
    Param("copy", Speculative.copy, "p.copy", 0.0, COPY_MAX, 0.05, help="p.copy.help"),
    Param("spec_lookup", Speculative.lookup, "p.spec_lookup", 0, LOOKUP_MAX, help="p.spec_lookup.help"),
    Param("runner_up", Speculative.runner_up, "p.runner_up", help="p.runner_up.help"),
    Param("n_auto", True, "p.n_auto",
          help="p.n_auto.help"),
    Param("rule", "greedy", "p.rule", choices=RULES, widget="radio",
          labels={"greedy": "p.rule.greedy", "topk": "p.rule.topk", "sample": "p.rule.sample"},
          help="p.rule.help"),
    Param("verify_k", 3, "p.verify_k", 1, 50),
    Param("target_sample", False, "p.target_sample"),
    Param("spec_max_new", 48, "p.spec_max_new", 2, 256),
    Param("sweep_max_n", 6, "p.sweep_max_n", 2, 12),
    Param("sweep_tokens", 24, "p.sweep_tokens", 8, 128),
    Param("sweep_repeats", 2, "p.sweep_repeats", 1, 5, help="p.sweep_repeats.help"),
    Param("drift_k", 5, "p.drift_k", 1, 50),
    Param("drift_trials", 3000, "p.drift_trials", 200, 20000, 200, widget="number"),
] + sampling_table("spec_", rep=True))
TESTS = {rule: f"spec.test.{rule}" for rule in RULES}  # catalogue ids of each rule's acceptance test


def controls(lm) -> Speculative:
    ss = st.session_state
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns(4)
        P.show("draft_source", c1)
        if ss.draft_source == "model":
            P.show("draft_model", c1)
        P.show("n_auto", c2, disabled=ss.draft_source != "embedded")
        drafting = ss.draft_source != "prompt-lookup"  # prompt lookup IS a copy: no mix, no tree around it
        copy = ss.copy if drafting else 0.0
        lookup, runner_up = (int(ss.spec_lookup), bool(ss.runner_up)) if drafting else (0, False)
        if ss.n_auto and ss.draft_source == "embedded" and (
                chosen := loaders.auto_sizes(lm, Speculative("embedded", copy=copy, lookup=lookup, runner_up=runner_up))):
            P.preset("n_draft", chosen.n_draft)
        P.show("n_draft", c2, disabled=ss.n_auto and ss.draft_source == "embedded")
        P.show("stop_below", c2, disabled=ss.draft_source == "prompt-lookup")
        P.show("copy", c2, disabled=ss.draft_source == "prompt-lookup")
        P.show("rule", c3)
        if ss.rule == "topk":
            P.show("verify_k", c3)
            P.show("target_sample", c3)
        P.show("spec_max_new", c4)
        P.show("spec_lookup", c4, disabled=not drafting)
        P.show("runner_up", c4, disabled=not drafting)
        sampling = SamplingSettings()
        if ss.rule == "sample" or (ss.rule == "topk" and ss.target_sample):
            with st.expander(t("spec.sampling_settings"), expanded=False):
                sampling = show_sampling(P, "spec_")
    source = ss.draft_model.strip() if ss.draft_source == "model" else ss.draft_source
    n = "auto" if ss.n_auto and source == "embedded" else ss.n_draft
    raw = st.query_params.get("n_draft")
    # once, and only where the link's N is not the N run: the page itself writes the N it chose into the address
    if raw is not None and n == "auto" and raw != str(ss.n_draft) and not ss.get("_spec_link_n_said"):
        ss["_spec_link_n_said"] = True
        st.info(t("spec.link_n_auto", raw=params.echo(raw), toggle=t("p.n_auto")), icon=":material/info:")
    stop = ss.stop_below if ss.draft_source != "prompt-lookup" else 0.0
    return Speculative(source or "embedded", n, ss.rule, ss.verify_k, ss.target_sample, sampling, stop, copy, lookup,
                       runner_up)


def render() -> None:
    lab, prompt_ids = open_page("speculative", P)
    lm = lab.lm
    strategy = controls(lm)
    P.sync()
    if P["draft_source"] == "model" and not P["draft_model"].strip():
        st.info(t("spec.type_draft"))
        st.stop()
    run = lab.run(P["spec_max_new"])
    try:
        draft = loaders.draft(lm, strategy.draft)
        sizes = resolve_sizes(lm, strategy, draft=draft, loaders=loaders.CACHED)
        build_decoder(lm, strategy, run, loaders.CACHED, sizes)  # validate now, not mid-run
    except (ModelLoadError, ValueError) as exc:
        st.error(err_text(exc))
        st.caption(t("spec.rest_works"))
        st.stop()
    choice = sizes.choice
    if choice and choice.get("reason") == "measured":
        with st.expander(t("spec.sized", n=sizes.n_draft, tau=choice["tau"], tps=choice["tokens_per_s"])):
            tokens = choice.get("verify_tokens", {}).get(sizes.n_draft, sizes.n_draft + 1)
            pass_ms = 1000 * choice.get("pass_s", {}).get(sizes.n_draft, choice["verify_s"][1])
            st.markdown(t("spec.sizing", draft_ms=1000 * choice["draft_step_s"], tokens=tokens, pass_ms=pass_ms,
                          weights=choice.get("draft_weights", "float32")))
            chart(st, sizing_figure(choice, "chain"), "spec-sizing", width="stretch")
    elif choice:
        st.caption(t("spec.n_reason", n=sizes.n_draft, reason=say(choice["reason"])))
    step_through(lab, strategy, run, sizes, prompt_ids, draft is None)

    st.header(t("spec.h.sweep"))
    st.markdown(t("spec.sweep"))
    st.latex(r"\text{speed-up}(N) = \frac{1-\alpha^{N+1}}{(1-\alpha)(Nc+1)}")
    st.markdown(t("spec.sweep_measured"))
    s1, s2, s3, s4 = st.columns(4)
    P.show("sweep_max_n", s1)
    P.show("sweep_tokens", s2)
    P.show("sweep_repeats", s3)
    sweep_run = lab.run(P["sweep_tokens"], stop_at_eos=False)
    key = (lab.key, strategy, sweep_run, P["sweep_max_n"], P["sweep_repeats"])
    if s4.button(t("spec.run_sweep"), type="primary", width="stretch"):
        measure("sweep", key, lambda progress, stop: study.n_sweep(
            lm, prompt_ids, strategy, sweep_run, P["sweep_max_n"], loaders.CACHED, progress, stop, P["sweep_repeats"]))
    sweep = kept("sweep", key, t("spec.run_sweep"))
    if sweep and sweep.rows:
        busy_warning(st, lm, sweep.plain_tokens_per_s, sweep_run.max_new_tokens, len(prompt_ids))  # before the charts
        rows = sweep_rows(sweep)
        f1, f2 = st.columns(2)
        chart(f1, sweep_figure(rows, "tau", "tau (theory)", t("spec.m.tau"), t("spec.per_forward")),
              "spec-sweep-tau", width="stretch")
        chart(f2, sweep_figure(rows, "speed-up", "speed-up (theory)", t("spec.speedup_title"), t("spec.speedup_axis")),
              "spec-sweep-speed-up", width="stretch")
        st.markdown(t("spec.measured", alpha=sweep.alpha, c=sweep.c, n=sweep.best.n, speedup=sweep.best.speedup))
        if level := sweep.level_with_best():
            st.caption(t("spec.level", ns=", ".join(map(str, level)), n=sweep.best.n))
        st.caption(t("spec.published"))
        st.markdown(t("spec.why") + " " + sweep_explanation(sweep))
        st.subheader(t("spec.h.price"))
        st.markdown(t("spec.price"))
        chart(st, price_figure(rows), "spec-price", width="stretch")
        with st.expander(t("numbers")):
            table(st, rows)
            download_rows(t("numbers.download"), rows, "spec-sweep")
    drift_section(lab, draft, strategy, prompt_ids)
    info = draft_manifest() if P["draft_source"] == "embedded" else None
    if info:
        with st.expander(t("spec.about_draft")):
            cost = info["architecture"]["cost_ratio_multiply_adds"]
            arch = info["architecture"]
            st.markdown(t("spec.draft_what", layers=arch["layers"], hidden=arch["hidden"], mlp=arch["intermediate"])
                        + "\n\n" + t("spec.draft_info", cost=cost, agree=info["heldout"]["top1_agreement"],
                                                    command=info["command"]))
            st.json(info, expanded=1)  # its sections listed, each opened on a click


def drift_section(lab, draft, strategy: Speculative, prompt_ids) -> None:
    st.header(t("spec.h.drift"))
    st.markdown(t("spec.drift"))
    t1, t2, t3 = st.columns(3)
    P.show("drift_k", t1)
    P.show("drift_trials", t2)
    P.sync()
    if draft is None:
        st.info(t("spec.drift.needs_q"))
        return
    key = (lab.key, strategy.draft, strategy.sampling, P["drift_k"], P["drift_trials"])
    if t3.button(t("spec.measure_drift"), type="primary", width="stretch"):
        with st.spinner(t("spec.verifying")):
            results.keep("drift", key, study.topk_drift(lab.lm, draft, prompt_ids, strategy, P["drift_k"],
                                                        int(P["drift_trials"]), lab.seed))
    drift = results.get("drift", key, t("spec.measure_drift"))
    if drift:
        chart(st, drift_figure(drift.texts, drift.p, {"draft q": drift.q, **drift.freq}), "spec-drift", width="stretch")
        table(st, drift_rows(drift))
        st.caption(t("spec.drift_noise", noise=drift.tv_noise, trials=drift.trials))


def branch_caption(step, rule: str) -> str:
    """What the tree around the chain added to this step, and whether the accepted path went through it; under
    rejection sampling, what a branch token's min(1, p/q) cell holds (it was tested against the residual)."""
    taken = step.accepted_branch
    if taken:
        first = taken[0]
        what = t("spec.branch.taken", i=first.depth, source=t(f"spec.branch.{first.source}"), n=len(taken))
    else:
        what = t("spec.branch.none")
    kinds = [d.source for d in step.branch]
    tested = rule == "sample" and any(d.uniform is not None for d in step.branch)
    return t("spec.branch", extra=len(kinds), runner_up=kinds.count("runner-up"), lookup=kinds.count("lookup"),
             taken=what) + (" " + t("spec.branch.residual") if tested else "")


@st.fragment
def step_through(lab, strategy: Speculative, run, sizes, prompt_ids, lookup: bool):
    lm = lab.lm
    state = stepper("spec", (lab.key, strategy, run, sizes.n_draft),
                    lambda: build_decoder(lm, strategy, run, loaders.CACHED, sizes).start(prompt_ids))
    dec, cursor = state["decoder"], state["cursor"]
    if cursor < 0:
        st.info(t("spec.press_step"))
        return
    st.markdown(origin_html(dec.history, cursor), unsafe_allow_html=True)
    step = dec.history[cursor]
    # greedy match compares tokens, so q is shown only where a rule, the confidence stop or the copy mix reads it
    has_q = not lookup and (strategy.rule != "greedy" or strategy.stop_below > 0 or strategy.copy > 0)
    copying = not lookup and strategy.copy > 0
    branch = step.branch
    left, right = st.columns([3, 2])
    with left:
        st.markdown(t("spec.step", n=step.index + 1, drafted=step.n_drafted, accepted=step.n_accepted,
                      source=t(SOURCE[step.next_source]), token=code_token(step.next_text), emitted=len(step.emitted),
                      unit=token_unit(len(step.emitted)),
                      draft_ms=1000 * step.draft_s, target_ms=1000 * step.target_s))
        if step.drafts:
            table(st, draft_rows(step, strategy.rule, has_q, copying))
            copied = [d for d in step.drafts if d.copied]
            if copied:
                st.caption(t("spec.copied", n=len(copied), accepted=sum(d.status == "accepted" for d in copied),
                             w=strategy.copy))
            if branch:
                st.caption(branch_caption(step, strategy.rule))
            last = step.drafts[-1]
            if strategy.stop_below and len(step.drafts) < sizes.n_draft and last.q < strategy.stop_below:
                st.caption(t("spec.stopped", token=last.text, q=last.q, stop=strategy.stop_below, n=sizes.n_draft))
        else:  # prompt lookup drafts nothing without an earlier match; a draft model only at the budget's end
            st.caption(t("spec.no_draft" if strategy.draft == "prompt-lookup" else "spec.no_draft_budget"))
        st.caption(t("spec.test", test=t(TESTS[strategy.rule], k=strategy.verify_k))
                   + (t("spec.lookup_q") if lookup else ""))
        if step.residual_top is not None and strategy.rule == "sample":
            chart(st, residual_figure(step.residual_top), "spec-residual", width="stretch")
    with right:
        m = metrics_so_far(dec.history[: cursor + 1])
        metric_rows(st, [
            (t("spec.m.acceptance"), f"{m['acceptance_rate']:.2f}" if m["acceptance_rate"] is not None else "–",
             t("spec.m.acceptance.help") + gloss("acceptance-rate")),
            (t("spec.m.tau"), f"{m['mean_accepted_length']:.2f}", t("spec.m.tau.help") + gloss("tau")),
            (t("spec.m.forwards"), m["verify_steps"], t("spec.m.forwards.help") + gloss("target-forward")),
            (t("spec.m.tokens_time"), f"{m['new_tokens']} / {m['wall_s']:.2f} s")])
        if dec.done and cursor == len(dec.history) - 1:
            if state.get("plain") is None:
                with st.spinner(t("spec.timing_plain")):
                    state["plain"] = study.plain_run(lm, prompt_ids, strategy, RunSettings(
                        len(dec.tokens), run.seed, run.backend, stop_at_eos=False)).metrics
            base = state["plain"]
            speedup = (m["new_tokens"] / m["wall_s"]) / (base["new_tokens"] / base["wall_s"])
            metric_rows(st, [(t("spec.m.speedup"), f"{speedup:.2f}×", t("spec.m.speedup.help") + gloss("speed-up")),
                             (t("spec.m.plain"), f"{base['new_tokens'] / base['wall_s']:.1f} tok/s")])
            busy_warning(st, lm, base["new_tokens"] / base["wall_s"], base["new_tokens"], len(prompt_ids))
        st.caption(t("spec.engines"))
    download_run("speculative", lab, strategy, run, dec,
                 step_rows(dec.history[: cursor + 1], strategy.rule, has_q, copying),
                 t("spec.steps.help"))
    pin_panel("speculative", Snapshot(t("pin.label", what=say(describe(strategy, sizes)), n=step.index + 1), "html",
                                      origin_html(dec.history, cursor), (
        (t("spec.m.acceptance"), f"{m['acceptance_rate']:.2f}" if m["acceptance_rate"] is not None else "–"),
        (t("spec.m.tau"), f"{m['mean_accepted_length']:.2f}"), (t("spec.m.forwards"), str(m["verify_steps"])),
        (t("pin.tokens"), str(m["new_tokens"])), (t("spec.pin.wall"), f"{m['wall_s']:.2f} s"))))


if __name__ == "__main__":
    from ui.app import run_page

    run_page(render)
