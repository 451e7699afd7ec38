"""Declarative controls: a Param table derives URL parsing, widget kind and URL text."""
import pytest

from ui.controls import Param, sampling_table


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
