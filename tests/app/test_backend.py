"""AppTest: the sidebar's target-forward choice reaches the decoders (same tokens on every backend), a real
torch.compile of the embedded model runs in the app, and a bad URL value falls back to eager with a warning."""
from tests.app.conftest import open_app

PAGE = "pages/sampling.py"


def run_to_end(at):
    at.slider(key="max_new").set_value(5).run()
    at.selectbox(key="step_sampler").set_value("multinomial").run()
    at.button(key="sampling_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    caption = next(c.value for c in at.caption if " decoded in " in c.value)
    text = next(m.value for m in at.markdown if "**Step 5** drew" in m.value)
    return caption, text


def test_static_and_compiled_backends_give_the_same_step():
    at = open_app(PAGE)
    caption, eager_step = run_to_end(at)
    assert "(eager target forward)" in caption
    at.sidebar.selectbox(key="backend").set_value("static").run()
    caption, static_step = run_to_end(at)
    assert "(static target forward)" in caption and static_step == eager_step
    assert at.query_params["backend"] in ("static", ["static"])
    at.sidebar.selectbox(key="backend").set_value("compiled").run()  # compiles once (inductor on CPU)
    caption, compiled_step = run_to_end(at)
    assert compiled_step == eager_step
    fell_back = [w.value for w in at.sidebar.warning if "torch.compile is unavailable" in w.value]
    assert ("(compiled target forward)" in caption) != bool(fell_back)


def test_bad_backend_in_url_warns_and_uses_eager():
    at = open_app(query={"backend": "warp"})  # the home page: a page switch drops query params
    assert at.sidebar.selectbox(key="backend").value == "eager"
    assert any("backend" in w.value for w in at.warning), [w.value for w in at.warning]
