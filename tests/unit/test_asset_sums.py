"""The checksums shipped in code match the shipped assets, and a damaged asset is refused even without its
manifest (issue 15, item 4)."""
import shutil

import pytest

from decoding_core.asset_sums import SUMS
from decoding_core.draft import ASSETS, check_sha256, sha256
from decoding_core.models import ModelLoadError


def test_shipped_sums_match_the_assets():
    """Fails after retraining until `python scripts/asset_sums.py` is run."""
    assert SUMS, "decoding_core/asset_sums.py lists no assets"
    for rel, digest in SUMS.items():
        assert sha256(ASSETS / rel) == digest, f"{rel}: run python scripts/asset_sums.py"


def test_the_shipped_assets_stay_under_the_issues_bound():
    """Issue 10: the trained assets and the corpus added to the repo stay under ~60 MB (shrink_asset.py stores a
    float32 asset in bfloat16; extension x5, 1,920 instructions with answers of up to 96 tokens, added 0.36 MB)."""
    total = sum(f.stat().st_size for f in ASSETS.rglob("*") if f.is_file())
    assert total < 60e6, f"assets/ holds {total / 1e6:.1f} MB"


def test_a_flipped_asset_without_its_manifest_is_refused(tmp_path, monkeypatch):
    import decoding_core.draft as draft_mod

    fake_assets = tmp_path / "assets"
    shutil.copytree(ASSETS / "draft", fake_assets / "draft")
    (fake_assets / "draft" / "manifest.json").unlink()
    monkeypatch.setattr(draft_mod, "ASSETS", fake_assets)
    weights = fake_assets / "draft" / "draft.safetensors"
    check_sha256(weights, weights.parent / "manifest.json", "the rebuild command")  # intact: passes on SUMS alone
    with open(weights, "r+b") as f:
        f.seek(weights.stat().st_size // 2)
        f.write(b"\x00" * 4096)
    with pytest.raises(ModelLoadError, match="recorded sha256"):
        check_sha256(weights, weights.parent / "manifest.json", "the rebuild command")
    (weights.parent / "manifest.json").write_text("{ not json")
    with pytest.raises(ModelLoadError, match="could not be read"):
        check_sha256(weights, weights.parent / "manifest.json", "the rebuild command")


def test_heads_with_a_config_that_is_not_json_are_a_clear_message(tmp_path):
    """Every loader's config.json that is not JSON: ModelLoadError (not an uncaught JSON or OS error)."""
    from decoding_core.eagle3_head import load_eagle3
    from decoding_core.eagle_head import load_eagle_checkpoint
    from tests.conftest import make_tiny_lm

    target = make_tiny_lm(seed=0)
    for sub, loader in (("eagle", load_eagle_checkpoint), ("eagle3", load_eagle3)):
        folder = tmp_path / sub
        shutil.copytree(ASSETS / sub, folder)
        (folder / "config.json").write_text("{ not json")
        (folder / "manifest.json").unlink()
        with pytest.raises(ModelLoadError):
            loader(target, folder)
