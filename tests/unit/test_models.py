"""Model loading: local folders, and the errors a user can act on."""
import pytest
import torch

from decoding_core.models import ModelLoadError, embedded_gguf_path, load_model, resolve_device, resolve_dtype
from tests.conftest import make_tiny_lm


def test_local_folder_loads(tmp_path):
    from transformers import PreTrainedTokenizerFast
    from tokenizers import Tokenizer, models

    tiny = make_tiny_lm()
    tiny.model.save_pretrained(tmp_path)
    vocab = {f"t{i}": i for i in range(50)}
    tok = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel(vocab, unk_token="t0")))
    tok.save_pretrained(tmp_path)
    lm = load_model(str(tmp_path), "cpu", "float32")
    assert lm.vocab_size == 50 and lm.device.type == "cpu"
    assert torch.equal(lm.model.lm_head.weight, tiny.model.lm_head.weight)


def test_folder_without_weights(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ModelLoadError, match="no weights"):
        load_model(str(tmp_path), "cpu")


def test_folder_without_config(tmp_path):
    with pytest.raises(ModelLoadError, match="config.json"):
        load_model(str(tmp_path), "cpu")


def test_unreachable_hub_id_is_explained():
    with pytest.raises(ModelLoadError, match="hub"):
        load_model("no-such-org/no-such-model-xyz", "cpu")


def test_device_and_dtype_errors():
    with pytest.raises(ModelLoadError, match="Unknown device"):
        resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ModelLoadError, match="no CUDA"):
            resolve_device("cuda")
    assert resolve_device("auto").type in ("cpu", "cuda", "mps")
    with pytest.raises(ModelLoadError, match="Unknown dtype"):
        resolve_dtype("int3", torch.device("cpu"))
    assert resolve_dtype("bfloat16", torch.device("cpu")) == torch.bfloat16


def test_embedded_gguf_is_found_without_importing_the_package():
    path = embedded_gguf_path()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000


def test_visible_token_glyphs():
    from decoding_core.models import visible_token

    assert visible_token("\n\n ") == "\u21b5\u21b5\u2423"            # whitespace-only: every char a glyph
    assert visible_token(" there") == " there"                        # a word keeps its leading space
    assert visible_token("a\tb") == "a\u21e5b"
    assert visible_token("") == "\u2205"
    assert visible_token("\x07") == "\\x07"                           # control characters escaped, never raw
    # a partial UTF-8 character: its bytes (GPT-2 byte-level spelling 'ĠðŁĺ' = b' \xf0\x9f\x98')
    assert visible_token(" \ufffd", "\u0120\u00f0\u0141\u013a") == "\u2423\u27e8F0 9F 98\u27e9"
    assert visible_token("\ufffd", None) == "\ufffd"                  # no byte spelling: shown as decoded


def test_tokens_html_breaks_after_newline():
    from viz.sampling import tokens_html

    html_ = tokens_html(["a", "\u21b5", "b"], [0.5, 0.5, 0.5])
    assert html_.count("<br>") == 1 and html_.index("<br>") < html_.index(">b<")
