"""The two catalogues (ui/locales/en.py, zh.py): complete, non-empty, the same placeholders, every id the code asks
for present, Chinese where it should be, and the notes' own sentences quoted beside the pitfalls."""
import re
import string
from pathlib import Path

import pytest

from tests.conftest import ROOT
from ui import i18n
from ui.i18n import t
from ui.locales import en, zh

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
NOTES = ROOT.parent / "shared" / "reference" / "seed-notes-decoding.zh.txt"
# ids whose text is the same in both languages: names, symbols and technical terms kept as they are
SAME = {"lang.en", "lang.zh", "p.lang", "page.eagle.title", "p.rp", "p.ap", "p.rpl", "p.mc", "p.verify_k",
        "p.device.help", "glossary.top-k", "glossary.distinct-n", "export.csv", "export.json", "glossary.link",
        "cmp.kind.eagle",
        "cmp.g.distinct", "p.eagle_head.eagle1", "p.eagle_head.eagle3", "p.tree_kind.static", "p.tree_kind.dynamic",
        "core.method.gumbel-max", "core.desc.tree"}  # the last: placeholders only


def fields(text: str) -> list:
    """The format fields of a text ({n:,}, {tau:.2f}); LaTeX braces (\\text{Exp}) count too, so they must match."""
    try:
        return sorted((name, spec) for _, name, spec, _ in string.Formatter().parse(text) if name is not None)
    except ValueError:  # an unbalanced brace: compare the braces themselves
        return sorted(re.findall(r"[{}]", text))


def test_both_catalogues_have_every_id_and_none_is_empty():
    assert set(en.TEXT) == set(zh.TEXT), (set(en.TEXT) ^ set(zh.TEXT))
    empty = [(lang, k) for lang, cat in (("en", en.TEXT), ("zh", zh.TEXT)) for k, v in cat.items()
             if not isinstance(v, str) or not v.strip()]
    assert not empty, empty


def test_placeholders_are_the_same_in_both_languages():
    differ = {k: (fields(en.TEXT[k]), fields(zh.TEXT[k])) for k in en.TEXT if fields(en.TEXT[k]) != fields(zh.TEXT[k])}
    assert not differ, differ


def test_the_chinese_catalogue_is_chinese():
    untranslated = [k for k, v in zh.TEXT.items() if not CJK.search(v) and v == en.TEXT[k] and k not in SAME
                    and not k.startswith("col.") and len(v) > 3]
    assert not untranslated, untranslated
    assert sum(bool(CJK.search(v)) for v in zh.TEXT.values()) > 0.9 * len(zh.TEXT)


def test_numbers_are_formatted_the_same_in_both_languages():
    for lang in i18n.LANGS:
        assert "49,152" in t("sidebar.loaded", lang, name="m", device="cpu", dtype="float32", vocab=49152, load_s=1.23)
        assert "1.2 s" in t("sidebar.loaded", lang, name="m", device="cpu", dtype="float32", vocab=49152, load_s=1.23)
        assert "12.5%" in t("sidebar.prompt_share", lang, share=0.125, context=2048)


def ids_in_code() -> set[str]:
    """Every literal id the code passes to t(), to a Param (label, help) or keeps in an id table."""
    found = set()
    for path in [*ROOT.glob("pages/*.py"), *ROOT.glob("ui/*.py"), *ROOT.glob("viz/*.py")]:
        src = path.read_text()
        found |= set(re.findall(r'\bt\("([a-z][\w.\- ]*)"', src))
        found |= set(re.findall(r'"((?:p|cmp\.f|cmp\.shown|viz\.origin|viz\.source)\.[\w.\- ]+)"', src))
    return found


def test_every_id_the_code_asks_for_exists():
    ids = ids_in_code()
    assert len(ids) > 300
    missing = sorted(i for i in ids if i not in i18n.CATALOGUES["en"])  # derived names (shown_name) included
    assert not missing, missing


def test_outside_a_streamlit_run_the_language_is_english():
    assert i18n.lang() == "en"
    assert t("page.beam.title") == "Beam search" and t("page.beam.title", "zh") == "束搜索"
    assert t("beam.step", "zh", n=3) == "第 3 步"


@pytest.mark.parametrize("term", ["束搜索", "推测性解码", "草稿模型", "目标模型", "接受率", "树注意力掩码", "前向传递",
                                  "剪枝", "别名采样", "Gumbel Max 技巧"])
def test_terms_follow_the_notes(term):
    assert sum(term in v for v in zh.TEXT.values()) >= 2, term


@pytest.mark.parametrize("id_, quote", [
    ("sampling.pitfall", "Gumbel噪声可以预先计算。"),
    ("sampling.pitfall", "# 一次性生成噪声张量"),
    ("beam.empty", "如果以下条件成立则丢弃候选"),
    ("spec.drift", "出现在目标模型的top-"),
])
def test_pitfalls_quote_the_notes_beside_the_correction(id_, quote):
    """The Chinese pitfall texts quote the notes' own sentence (checked against the notes where they are here)
    and say what is right instead."""
    assert quote in zh.TEXT[id_]
    assert "纠正" in zh.TEXT[id_]
    if NOTES.exists():
        notes = NOTES.read_text()
        assert quote.replace("# ", "") in notes.replace("# ", ""), quote


def test_every_page_has_a_title_and_caption_in_both():
    from ui.app import PAGES

    for name, _ in PAGES:
        for lang in i18n.LANGS:
            assert t(f"page.{name}.title", lang)
            if name != "home":
                assert t(f"page.{name}.caption", lang)


def test_a_bad_lang_is_refused_like_any_link_value():
    from ui import params

    with pytest.raises(ValueError, match="expected one of en, zh"):
        params.parse("fr", str, choices=i18n.LANGS)
    assert Path(i18n.__file__).read_text().count("params.warn(") == 1


def test_sampler_names_are_written_once_per_language():
    """The choices' and legends' names (viz.series.<code>) and the table cells' (cell.<code>) of every sampler and
    cost method are derived from the core's (core.sampler.*, else core.method.*), with the code name in brackets
    where the name is not just the code with other case or spaces; no catalogue writes them again."""
    assert i18n.shown_name({"core.sampler.exp-race": "指数竞赛"}, "exp-race") == "指数竞赛 (exp-race)"
    assert i18n.shown_name({"core.method.gumbel-max": "Gumbel-max"}, "gumbel-max") == "Gumbel-max"
    assert i18n.shown_name({"core.method.binary-search": "binary search"}, "binary-search") == "binary search"
    assert t("cell.multinomial", "zh") == t("viz.series.multinomial", "zh") == "多项分布采样 (multinomial)"
    assert t("viz.series.gumbel", "zh") == "Gumbel-max (gumbel)" and t("viz.series.gumbel", "en") == "gumbel"
    assert t("cell.exp-race", "en") == "exponential race (exp-race)"  # the method's name first, as the page's text
    assert t("viz.series.binary-search", "en") == "binary search" and t("cell.gumbel-max", "en") == "Gumbel-max"
    for catalogue in (en.TEXT, zh.TEXT):  # no literal entry repeats a derived one
        codes = {c.split(".", 2)[-1] for c in catalogue if c.startswith(("core.sampler.", "core.method."))}
        assert not [k for k in catalogue if k.startswith(("cell.", "viz.series.")) and k.split(".")[-1] in codes]
