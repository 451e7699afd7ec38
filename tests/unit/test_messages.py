"""The core's words (decoding_core/messages.py): a Msg is its English text for the CLI and logs, and the app says
it in the reader's language by its id (issue 16), arguments that are Msgs included; table cells translate words
only in columns of words, never model output."""
import pickle
import re

from decoding_core.messages import EN, Msg, render
from decoding_core.settings import Beam, BeamSettings, Eagle, Greedy, Sample, Speculative, StochasticBeam
from decoding_core.strategies import describe
from decoding_core.studies.sampling_cost import CostRow, crossovers
from ui.i18n import t
from ui.locales import en, zh

CJK = re.compile(r"[\u3400-\u9fff]")


def zh_of(msg) -> str:
    return render(msg, lambda id_, **a: t(id_, "zh", **a))


def test_a_msg_is_its_english_text_and_keeps_its_id_through_a_pickle():
    m = Msg.of("core.size.no_chain_table", n=4)
    assert m == "no tau table for this draft: the reference N = 4" and isinstance(m, str)
    back = pickle.loads(pickle.dumps(m))
    assert isinstance(back, Msg) and back.id == m.id and back.args == {"n": 4} and back == m
    assert zh_of(back) == "这个草稿模型没有 τ 表：用参考值 N = 4"
    assert render("plain text", lambda *a, **k: "never") == "plain text"


def test_every_core_text_is_in_both_catalogues():
    assert set(EN) <= set(en.TEXT) and set(EN) <= set(zh.TEXT)
    assert all(en.TEXT[k] == v for k, v in EN.items())


def test_strategy_labels_in_chinese_translate_their_parts_and_keep_numbers():
    cases = [Greedy(), Sample(), Beam(BeamSettings(num_beams=6, rp=0.6, sample_prefix=2)), StochasticBeam(4, 0.7),
             Speculative(draft="embedded", n_draft=3, rule="sample"), Speculative(draft="prompt-lookup", n_draft=4),
             Eagle(head="eagle3", tree="static", total_tokens=26, depth=5)]
    for s in cases:
        label = describe(s)
        assert isinstance(label, Msg), s
        said = zh_of(label)
        assert CJK.search(said), (label, said)
        assert re.findall(r"\d+", said) == re.findall(r"\d+", str(label)), (label, said)
    assert zh_of(describe(Beam(BeamSettings(num_beams=6, rp=0.6, sample_prefix=2)))) == "束搜索（k 6，剪枝，采样前缀 2）"
    assert str(describe(Speculative(draft="embedded", n_draft=3, rule="sample"))) == \
        "speculative (shipped draft, N 3, copy weight 0.3, + lookup 8, + runner-ups, sample)"
    assert zh_of(describe(Speculative(draft="embedded", n_draft=3, rule="sample"))) == \
        "推测性解码（随附的草稿模型，N 3，复制权重 0.3，另加查找 8，另加次选，拒绝采样）"
    assert str(describe(Speculative(n_draft=3, copy=0.0, lookup=0, runner_up=False))) == \
        "speculative (shipped draft, N 3, greedy)"
    assert str(describe(Speculative(n_draft=3, copy=0.0, lookup=0))) == "speculative (shipped draft, N 3, + runner-ups, greedy)"
    # sizes not yet measured and the samplers' names are words the Chinese label translates too
    assert str(describe(Speculative(copy=0.0, lookup=0, runner_up=False))) == "speculative (shipped draft, N auto, greedy)"
    assert zh_of(describe(Speculative(copy=0.0, lookup=0, runner_up=False))) == "推测性解码（随附的草稿模型，N 自动，贪婪匹配）"
    assert str(describe(Eagle(head="eagle3"))) == "EAGLE (EAGLE-3, dynamic tree, size for this device)"
    assert zh_of(describe(Eagle(head="eagle3"))) == "EAGLE（EAGLE-3，动态树，大小按本机测定）"
    assert str(describe(Sample(sampler="alias"))) == "sampling (T 1, alias)"
    assert zh_of(describe(Sample(sampler="alias"))) == "采样（T 1，别名采样）"
    assert zh_of(describe(Sample(sampler="multinomial"))) == "采样（T 1，多项分布采样）"


def test_sampling_cost_crossovers_are_msgs_with_translated_method_names():
    rows = [CostRow("alias", "one", 1000, n, 1, s) for n, s in ((1, 2.0), (10, 0.5), (100, 0.4))] + \
           [CostRow("gumbel-max", "one", 1000, n, 1, s) for n, s in ((1, 1.0), (10, 1.0), (100, 4.0))] + \
           [CostRow("gumbel-max", "new", 1000, 1, 8, 0.01), CostRow("alias", "new", 1000, 1, 8, 0.05)]
    said = crossovers(rows, [1000])
    assert [str(x) for x in said] == [
        "n draws from one distribution (k = 1,000): alias beats Gumbel-max from n = 10 on.",
        "one draw per new distribution, batch 8 (k = 1,000): fastest is Gumbel-max; the alias table (rebuilt per "
        "row) takes 5× as long."]
    assert [zh_of(x) for x in said] == [
        "从同一个分布抽 n 次（k = 1,000）：从 n = 10 起，别名采样比 Gumbel-max 快。",
        "每个新分布抽一次，批大小 8（k = 1,000）：最快的是Gumbel-max；别名表（每行重建）耗时是它的 5×。"]


def test_table_cells_translate_words_only_in_columns_of_words():
    from ui import lab

    assert lab.cell("status", "pruned") == "pruned"  # outside a Streamlit run: English
    import ui.i18n as i18n

    orig = i18n.lang
    try:
        i18n.lang = lambda: "zh"
        lab.t = lambda id_, lang_=None, **f: t(id_, "zh", **f)
        assert lab.cell("status", "pruned") == "已剪枝"
        assert lab.cell("regime", "new") == "每次新分布"
        assert lab.cell("token", "new") == "new"  # model output is never translated
        assert lab.cell("draft token", "accepted") == "accepted"
        assert lab.cell("method", Msg.of("core.div.plain")) == "普通束搜索"
        assert lab.cell("score", 1.5) == 1.5
    finally:
        i18n.lang = orig
        lab.t = t


def test_of_exception_keeps_the_msg_the_core_raised():
    from decoding_core.messages import of_exception

    msg = Msg.of("core.err.empty_prompt")
    kept = of_exception(ValueError(msg))
    assert isinstance(kept, Msg) and kept.id == "core.err.empty_prompt"
    assert of_exception(ValueError("plain")) == "plain"
    assert of_exception(KeyError("a", "b")) == str(KeyError("a", "b"))


def test_compare_rows_split_a_core_label_in_the_tables_language():
    """The EAGLE page hands compare_rows the core's labels (Msg): the name and the settings columns are in the
    table's language, the CSV's (English) by default."""
    from types import SimpleNamespace

    from viz.tables import compare_rows

    run = SimpleNamespace(label=describe(Speculative(n_draft=2, copy=0.0, lookup=0, runner_up=False)), error=None,
                          tokens=[1, 2], tokens_per_s=10.0, new_tokens=2, wall_s=0.2, target_forwards=1, logprob=None,
                          tau=2.0, acceptance_by_depth=(1.0,), distinct_2=1.0, overlap=None, seeds=1)
    cmp = SimpleNamespace(runs=(run,), reference=run.label)
    zh_row, en_row = compare_rows(cmp, lang="zh")[0], compare_rows(cmp)[0]
    assert (zh_row["strategy"], zh_row["settings"]) == ("推测性解码", "随附的草稿模型，N 2，贪婪匹配")
    assert (en_row["strategy"], en_row["settings"]) == ("speculative", "shipped draft, N 2, greedy")
