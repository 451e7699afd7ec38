import pytest

from ui.params import parse


@pytest.mark.parametrize("raw,kind,kw,expected", [
    ("0.5", float, {"lo": 0, "hi": 1}, 0.5), ("7", int, {"lo": 0, "hi": 10}, 7), ("true", bool, {}, True),
    ("off", bool, {}, False), ("gumbel", str, {"choices": ["gumbel", "multinomial"]}, "gumbel"),
])
def test_parse_valid(raw, kind, kw, expected):
    assert parse(raw, kind, **kw) == expected


@pytest.mark.parametrize("raw,kind,kw", [
    ("2", float, {"lo": 0, "hi": 1}), ("-1", int, {"lo": 0, "hi": 10}), ("1.5", int, {}), ("nan", float, {}),
    ("maybe", bool, {}), ("alias", str, {"choices": ["gumbel"]}), ("abc", float, {}),
])
def test_parse_invalid_raises_value_error(raw, kind, kw):
    with pytest.raises(ValueError):
        parse(raw, kind, **kw)


def test_messages_never_echo_a_whole_value():
    from ui.params import echo, parse

    long = "9" * 10_000
    with pytest.raises(ValueError) as err:
        parse(long, int, 0, 5)
    assert long[:50] not in str(err.value)
    assert len(echo(long)) < 80 and "10,000 characters" in echo(long)
    assert echo("a\x07\u202eb") == repr("a\x07\u202eb")  # control and bidi characters escaped, not raw
