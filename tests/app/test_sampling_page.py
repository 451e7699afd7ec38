"""AppTest drives the Sampling page's widgets on the embedded model and checks what they change."""
import json

from tests.app.conftest import open_app, page_path

PAGE = "pages/sampling.py"


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_home_lists_pages():
    at = open_app()
    assert any("Decoding Lab" in t.value for t in at.title)
    assert at.sidebar.text_input(key="model").value == "embedded"


def test_home_lecture_path_opens_an_experiment():
    """Every lecture step names its page and what to look at; "Try it" sets that page's controls and opens it."""
    from ui.texts import lecture, look_first

    at = open_app()
    path = lecture()
    assert [h.value for h in at.subheader][:len(path)] == [f"{n} · {s['title']}" for n, s in enumerate(path, 1)]
    assert path[0]["title"] == "Sampling" and path[0]["look"].startswith("Look first at the bars")
    step = next(s for s in path if s["page"] == "sampling")
    at.button(key="try_sampling_0").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.slider(key="temperature").value == step["tries"][0][2]["temperature"] == 0.3
    assert any(look_first("sampling") == i.value for i in at.info)


def test_processor_sliders_change_the_distribution():
    at = open_app(PAGE)
    assert metric(at, "Tokens left") == "49,152"
    at.slider(key="top_k").set_value(7).run()
    assert metric(at, "Tokens left") == "7"
    at.slider(key="top_k").set_value(0).run()
    at.slider(key="top_p").set_value(0.5).run()
    assert int(metric(at, "Tokens left").replace(",", "")) < 10
    top_before = float(metric(at, "Top token p"))
    at.slider(key="temperature").set_value(0.3).run()
    assert float(metric(at, "Top token p")) > top_before
    assert at.query_params["temperature"] in ("0.3", ["0.3"])
    # the chart's title quotes the user's words (the chat template's markers are not for a class to read)
    title = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]
    words = " ".join(at.session_state["prompt"].split())[-20:]
    assert title.startswith("The reply’s first token, after “…") and words in title and "<|im" not in title
    at.toggle(key="chat").set_value(False).run()  # no template: the prompt's last tokens, as the model reads them
    title = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]
    assert title.startswith("After “…") and "<|im" not in title
    assert not at.exception


def test_draw_samples_reports_fit_for_each_sampler():
    at = open_app(PAGE)
    at.number_input(key="draws").set_value(5000).run()
    next(b for b in at.button if b.label == "Draw samples").click().run()
    table = at.dataframe[0].value
    assert list(table["sampler"]) == ["multinomial", "gumbel"]
    assert (table["draws"] == 5000).all()
    assert (table["TV distance"] < 0.1).all() and (table["p-value"] > 1e-4).all()


def test_pitfall_reused_noise_draws_one_token():
    at = open_app(PAGE)
    line = next(m.value for m in at.markdown if m.value.startswith("Distinct tokens drawn"))
    fresh, reused = [int(x) for x in line.replace("*", "").split() if x.rstrip(",").isdigit()][:2]
    assert reused == 1 and fresh > 1


def test_step_back_and_run_to_end():
    at = open_app(PAGE)
    at.slider(key="max_new").set_value(6).run()
    at.button(key="sampling_step").click().run()
    assert any("**Step 1** drew" in m.value for m in at.markdown)  # steps are numbered from 1
    at.button(key="sampling_step").click().run()
    assert any("**Step 2** drew" in m.value for m in at.markdown)
    at.button(key="sampling_back").click().run()
    assert any("**Step 1** drew" in m.value for m in at.markdown)
    at.button(key="sampling_run").click().run()
    assert any("**Step 6** drew" in m.value for m in at.markdown)
    assert at.button(key="sampling_step").disabled
    assert not at.exception


def test_empty_prompt_and_bad_url_values_are_explained():
    # a page switch drops query params (as navigation does): a page's own are checked in the browser
    # suite, which opens /sampling?... directly
    at = open_app(query={"seed": "abc", "dtype": "int3", "chat": "maybe"})
    warnings = " ".join(w.value for w in at.warning)
    assert "seed" in warnings and "dtype" in warnings and "chat" in warnings
    assert at.sidebar.number_input(key="seed").value == 0
    at.switch_page(page_path(PAGE))
    at.run()
    at.sidebar.text_area(key="prompt").set_value("   ").run()
    assert any("prompt is empty" in i.value for i in at.info)
    assert not at.exception


def test_settings_survive_another_page_and_a_page_stopped_by_an_empty_prompt():
    """The session's side: after a visit to another page and after a run stopped before its widgets (an empty
    prompt), the page holds, shows and decodes with the settings it had, and puts them back in the link. (AppTest
    keeps widget values itself, so the widgets coming back at their first values in a browser, which
    ``ui.controls.keep_settings`` mends, is the browser test's and tests/unit/test_controls.py's to show.)"""
    at = open_app(PAGE)
    at.slider(key="temperature").set_value(0.7).run()
    at.slider(key="max_new").set_value(4).run()
    at.selectbox(key="step_sampler").set_value("alias").run()
    at.switch_page(page_path("pages/beam.py"))
    at.run()
    at.switch_page(page_path(PAGE))
    at.run()
    assert at.slider(key="temperature").value == 0.7 and at.slider(key="max_new").value == 4
    assert at.selectbox(key="step_sampler").value == "alias"
    assert at.query_params["max_new"] == "4"  # and back in the link
    at.sidebar.text_area(key="prompt").set_value("").run()
    assert any("prompt is empty" in i.value for i in at.info)
    at.sidebar.text_area(key="prompt").set_value("Hello there").run()
    assert at.slider(key="max_new").value == 4 and at.selectbox(key="step_sampler").value == "alias"
    at.button(key="sampling_run").click().run()
    assert any("**Step 4** drew" in m.value for m in at.markdown)  # the run uses what the widgets show
    assert not at.exception


def test_a_prompt_too_long_for_a_link_stays_out_of_it_and_the_sidebar_says_so():
    at = open_app(PAGE)
    at.sidebar.text_area(key="prompt").set_value("Tell me about the sea. ").run()
    assert at.query_params["prompt"] == "Tell me about the sea. "
    long = "Tell me about the sea and the waves. " * 300  # 11,100 characters, ~3,000 tokens: fits the model
    at.sidebar.text_area(key="prompt").set_value(long).run()
    assert "prompt" not in at.query_params  # the short one is gone too, not left behind as if it were this one
    assert any("too long for a link" in c.value and "11,100 characters" in c.value for c in at.sidebar.caption)
    assert metric(at, "Tokens left")  # the page itself runs on it
    assert not at.exception


def test_unloadable_model_falls_back_to_embedded():
    at = open_app()
    at.sidebar.text_input(key="model").set_value("/no/such/model").run()
    assert any("could not be loaded" in e.value for e in at.sidebar.error)
    assert any("could not be loaded" in w.value for w in at.warning)
    assert at.sidebar.text_input(key="model").value == "embedded"  # the bad id does not stay in the box
    at.switch_page(page_path(PAGE))
    at.run()
    assert not any("could not be loaded" in w.value for w in at.warning)  # said once, not on every rerun
    assert metric(at, "Tokens left")  # the page still works on the embedded model
    assert any("Prompt: **" in c.value and "context" in c.value for c in at.sidebar.caption)
    assert not at.exception


def test_presentation_mode_from_the_link_enlarges_the_type():
    at = open_app(query={"present": "true"})
    assert at.sidebar.toggle(key="present").value is True
    assert any("font-size: 21px" in h.proto.body for h in at.get("html"))
    at.sidebar.toggle(key="present").set_value(False).run()
    assert not any("font-size: 21px" in h.proto.body for h in at.get("html"))


def test_a_link_with_a_step_position_reopens_that_step():
    at = open_app(query={"max_new": "8", "step_sampler": "multinomial"})
    at.switch_page(page_path(PAGE))
    at.query_params["sampling_pos"] = "3"  # a page switch drops the link; set it as a fresh link would
    at.run()
    assert any("**Step 3** drew" in m.value for m in at.markdown)
    at.button(key="sampling_step").click().run()
    assert at.query_params["sampling_pos"] in ("4", ["4"])
    bad = open_app(query={"sampling_pos": "x"})
    bad.switch_page(page_path(PAGE))
    bad.query_params["sampling_pos"] = "-2"
    bad.run()
    assert not bad.exception


def test_presentation_mode_enlarges_chart_type():
    import json

    def font(at):
        return json.loads(at.get("plotly_chart")[0].proto.spec)["layout"].get("font", {}).get("size")

    at = open_app(PAGE)
    assert font(at) != 18
    at = open_app(PAGE, query={"present": "true"})
    assert font(at) == 18


def test_glossary_lists_every_entry():
    from ui.texts import gloss, glossary

    at = open_app("pages/glossary.py")
    shown = {h.value for h in at.subheader}
    terms = {term for _, entries in glossary() for _, term, _ in entries}
    assert len(terms) == 21 and "Mean accepted length τ" in terms and terms <= shown
    assert gloss("tau") == " [Glossary →](/glossary?term=tau#tau)"
    # a help link's entry is shown first (the #fragment cannot scroll a page drawn after the browser looked for it)
    at = open_app("pages/glossary.py", {"term": "tau"})
    assert at.info[0].value.startswith("**Mean accepted length τ**\n\n(A + S) / S over S verify steps")
    assert not open_app("pages/glossary.py", {"term": "nonsense"}).info  # an unknown term: the list alone
    zh = open_app("pages/glossary.py", {"term": "tau", "lang": "zh"})
    assert zh.info[0].value.startswith("**") and "S 个验证步骤" in zh.info[0].value


def test_every_page_restores_the_tree_pictures_type_size():
    """Streamlit sets every element of a graphviz chart to 9.6 px; each page adds a rule per size the trees use
    (8-20 pt) that draws a tree's text at the size graphviz laid its boxes out for (the browser test measures it)."""
    at = open_app()
    css = next(h.proto.body for h in at.get("html") if "stGraphVizChart" in h.proto.body)
    assert '[data-testid="stGraphVizChart"] svg text[font-size="16.00"] { font-size: 16px; }' in css
    assert 'text[font-size="12.00"] { font-size: 12px; }' in css and 'font-size="21.00"' not in css
