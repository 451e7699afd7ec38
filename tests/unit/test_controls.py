"""Declarative controls: a Param table derives URL parsing, widget kind and URL text."""
import pytest

from ui.controls import Controls, Param, sampling_table


def test_widget_kind_is_inferred_from_the_default():
    assert Param("a", True, "A").widget_kind == "toggle"
    assert Param("a", 3, "A", 1, 5).widget_kind == "slider"
    assert Param("a", "x", "A", choices=("x", "y")).widget_kind == "select"
    assert Param("a", ("x",), "A", choices=("x", "y")).widget_kind == "multi"
    assert Param("a", "", "A").widget_kind == "text"
    assert Param("a", 3, "A", 1, 5, widget="number").widget_kind == "number"


def test_url_values_round_trip_and_bad_ones_are_refused():
    k = Param("k", 4, "k", 1, 16)
    assert k.parse(k.to_url(7)) == 7
    for bad in ("0", "17", "x", "2.5"):
        with pytest.raises(ValueError):
            k.parse(bad)
    flag = Param("f", False, "f")
    assert flag.to_url(True) == "true" and flag.parse("true") is True
    picks = Param("s", ("a", "b"), "s", choices=("a", "b", "c"))
    assert picks.parse(picks.to_url(("c", "a"))) == ("c", "a")
    with pytest.raises(ValueError):
        picks.parse("a,z")
    rule = Param("r", "greedy", "r", choices=("greedy", "topk"))
    with pytest.raises(ValueError):
        rule.parse("trust")


def test_sampling_table_keys_are_prefixed():
    keys = [p.key for p in sampling_table("spec_", rep=True)]
    assert keys == ["spec_temperature", "spec_top_k", "spec_top_p", "spec_min_p", "spec_rep"]


def test_keep_settings_writes_every_registered_setting_back_before_the_widgets(monkeypatch):
    """Streamlit drops a widget's value at the end of a run that did not draw it (another page, a page stopped by a
    message), unless the value was written through session state in that run: ``keep_settings`` (the app's first
    call) writes back every setting of every Controls table built so far that the session holds, and nothing
    else (buttons, the Compare columns' own keys). The browser test shows the widgets coming back."""
    import ui.controls as controls

    class Recording(dict):
        def __init__(self, *a):
            super().__init__(*a)
            self.written = []

        def __setitem__(self, key, value):
            self.written.append(key)
            super().__setitem__(key, value)

    ss = Recording({"k_test": 7, "sampler_test": "alias", "beam_step": True, "cmp1_kind": "beam"})
    monkeypatch.setattr(controls, "st", type("St", (), {"session_state": ss}))
    Controls([Param("k_test", 4, "p.k", 1, 16), Param("sampler_test", "gumbel", "p.step_sampler",
                                                     choices=("gumbel", "alias")), Param("unseen_test", 1, "p.k", 1, 9)])
    controls.keep_settings()
    assert sorted(ss.written) == ["k_test", "sampler_test"]  # the values held, as they were; no other key
    assert ss["k_test"] == 7 and ss["sampler_test"] == "alias" and "unseen_test" not in ss
