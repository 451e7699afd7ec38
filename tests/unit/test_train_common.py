"""scripts/train_common.py's precision choice: --bf16 is dropped (and said so) where the CPU emulates bfloat16."""
import sys
from types import SimpleNamespace

import torch

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import train_common  # noqa: E402


def run_args(tmp_path, bf16):
    return SimpleNamespace(threads=0, work=str(tmp_path / "work"), out=str(tmp_path / "out"), seed=0, bf16=bf16)


def test_bf16_dropped_on_an_avx2_cpu(tmp_path, monkeypatch):
    monkeypatch.delenv("DECODING_LAB_FORCE_BF16", raising=False)
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX2")
    assert not train_common.bf16_is_fast()
    args = run_args(tmp_path, True)
    work, _, _ = train_common.start_run(args)
    assert args.bf16 is False and args.bf16_asked is True
    assert train_common.precision(args).startswith("float32 (--bf16 asked")
    assert "--bf16 ignored: this CPU (AVX2)" in (work / "train.log").read_text()
    # the override keeps it
    monkeypatch.setenv("DECODING_LAB_FORCE_BF16", "1")
    args = run_args(tmp_path, True)
    train_common.start_run(args)
    assert args.bf16 is True and train_common.precision(args).startswith("bfloat16 autocast")


def test_bf16_kept_on_avx512_and_float32_untouched(tmp_path, monkeypatch):
    monkeypatch.delenv("DECODING_LAB_FORCE_BF16", raising=False)
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX512")
    args = run_args(tmp_path, True)
    work, _, _ = train_common.start_run(args)
    assert args.bf16 is True and train_common.precision(args).startswith("bfloat16 autocast")
    assert "ignored" not in (work / "train.log").read_text()
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX2")
    args = run_args(tmp_path / "b", False)
    train_common.start_run(args)
    assert args.bf16 is False and train_common.precision(args) == "float32"
