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
