"""Damaged files on disk: the embedded cache checks itself and is rebuilt; a corrupt local folder is a clear
message, never a traceback (issue 15, items 2-3)."""
import shutil

import pytest

from decoding_core import models
from decoding_core.models import ModelLoadError, cache_problem, convert_embedded, embedded_cache_dir, load_model


@pytest.fixture
def cache_copy(tmp_path, monkeypatch, embedded):
    """A private copy of the (verified) embedded cache under a temporary $DECODING_LAB_CACHE."""
    real = embedded_cache_dir()
    assert cache_problem(real, checksums=False) is None
    monkeypatch.setenv("DECODING_LAB_CACHE", str(tmp_path / "cache"))
    shutil.copytree(real, embedded_cache_dir())
    monkeypatch.setattr(models, "_VERIFIED", set())
    return embedded_cache_dir()


def test_flipped_bytes_and_missing_files_are_detected(cache_copy):
    assert cache_problem(cache_copy) is None
    weights = cache_copy / "model.safetensors"
    with open(weights, "r+b") as f:      # 4 KiB flipped inside a weight: same size, different bytes
        f.seek(weights.stat().st_size // 2)
        block = f.read(4096)
        f.seek(weights.stat().st_size // 2)
        f.write(bytes(b ^ 0xFF for b in block))
    assert "checksum" in cache_problem(cache_copy)
    assert cache_problem(cache_copy, checksums=False) is None   # the size check alone cannot see it
    (cache_copy / "config.json").unlink()
    assert cache_problem(cache_copy, checksums=False) == "config.json is missing"


def test_a_truncated_cache_is_rebuilt_and_decodes_as_before(cache_copy, embedded):
    weights = cache_copy / "model.safetensors"
    with open(weights, "r+b") as f:
        f.truncate(weights.stat().st_size // 2)
    assert "truncated" in cache_problem(cache_copy, checksums=False)
    said = []
    folder = convert_embedded(lambda msg, frac: said.append(msg))
    assert any("damaged" in m for m in said) and cache_problem(folder) is None
    lm = load_model(device="cpu", dtype="float32")
    prompt = embedded.encode("Name a colour.", chat=True)
    from decoding_core.decoders import greedy_decoder

    assert greedy_decoder(lm, 6).start(prompt).run().tokens == greedy_decoder(embedded, 6).start(prompt).run().tokens


def test_a_corrupt_local_folder_is_a_clear_message(tmp_path, embedded):
    folder = tmp_path / "model"
    shutil.copytree(embedded_cache_dir(), folder)
    weights = folder / "model.safetensors"
    with open(weights, "r+b") as f:
        f.truncate(1000)
    with pytest.raises(ModelLoadError, match="could not be read|not a causal language model"):
        load_model(str(folder), device="cpu")
    (folder / "config.json").write_text("{ not json")
    with pytest.raises(ModelLoadError):
        load_model(str(folder), device="cpu")


def test_a_draft_whose_config_is_not_json_is_a_clear_message(tmp_path, embedded):
    from decoding_core.draft import ASSETS, load_embedded_draft

    folder = tmp_path / "draft"
    shutil.copytree(ASSETS / "draft", folder)
    (folder / "config.json").write_text("{ not json")
    with pytest.raises(ModelLoadError, match="config.json could not be read"):
        load_embedded_draft(embedded, folder)
    (folder / "manifest.json").write_text("not json either")
    with pytest.raises(ModelLoadError, match="manifest.json could not be read"):
        load_embedded_draft(embedded, folder)
