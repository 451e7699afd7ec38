"""The speculative draft model for the embedded target, and how drafts are loaded.

The shipped draft is a small Llama (a few layers; assets/draft/config.json) with the target's hidden
size, sharing the target's (frozen, tied) token embedding and LM head, so only its decoder layers and
final norm are stored (assets/draft/); its LM head is restricted to a draft vocabulary
(vocab.safetensors). ``draft_cost_ratio`` gives its multiply-adds per token over the target's. Any
Hugging Face causal LM with the same tokenizer can be a draft too. On the CPU small Llama drafts run
through a lean forward (``with_lean``, decoding_core/lean.py).
"""
from __future__ import annotations

import json
from pathlib import Path

import torch

from .layout import draft_layout
from .models import LoadedModel, ModelLoadError, load_model
from .messages import Msg

ASSETS = Path(__file__).resolve().parents[1] / "assets"
DRAFT_DIR = ASSETS / "draft"
REBUILD_DRAFT = "python scripts/train_draft.py (see assets/draft/manifest.json for the exact command)"


def draft_config(target_config, layers: int = 2, intermediate: int = 896):
    """The draft's LlamaConfig: the target's, with fewer layers and a narrower MLP."""
    cfg = type(target_config).from_dict(target_config.to_dict())
    cfg.num_hidden_layers = layers
    cfg.intermediate_size = intermediate
    cfg.tie_word_embeddings = True
    return cfg


def matmul_params(cfg, with_head: bool = True, head_rows: int | None = None) -> int:
    """Multiply-adds per token from weights (attention over the context excluded): layers + LM head."""
    h, i = cfg.hidden_size, cfg.intermediate_size
    kv = (getattr(cfg, "num_key_value_heads", None) or cfg.num_attention_heads) * (
        getattr(cfg, "head_dim", None) or h // cfg.num_attention_heads)
    per_layer = 2 * h * h + 2 * h * kv + 3 * h * i
    return cfg.num_hidden_layers * per_layer + ((head_rows or cfg.vocab_size) * h if with_head else 0)


def draft_cost_ratio(draft_cfg, target_cfg, head_rows: int | None = None) -> float:
    """Multiply-adds per token of the draft over the target's; ``head_rows``: a reduced draft vocabulary."""
    return matmul_params(draft_cfg, head_rows=head_rows) / matmul_params(target_cfg)


def source_layers(n_target: int, n_draft: int) -> list[int]:
    """The target layers a draft of ``n_draft`` layers starts from: evenly spread from layer 0 (2 of 30:
    layers 0 and 15; 4 of 30: 0, 8, 15, 22)."""
    return [round(i * n_target / n_draft) for i in range(n_draft)]


def init_draft_from_target(target: torch.nn.Module, cfg) -> torch.nn.Module:
    """A draft initialised from the target: evenly spread target layers (``source_layers``; MLP rows
    sliced), final norm, and the target's embedding (shared, frozen)."""
    from transformers import AutoModelForCausalLM

    draft = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
    layers = target.model.layers
    src_layers = [layers[i] for i in source_layers(len(layers), cfg.num_hidden_layers)]
    inter = cfg.intermediate_size
    with torch.no_grad():
        for dst, src in zip(draft.model.layers, src_layers):
            sd = {}
            for name, w in src.state_dict().items():
                if "gate_proj" in name or "up_proj" in name:
                    w = w[:inter]
                elif "down_proj" in name:
                    w = w[:, :inter]
                sd[name] = w.float()
            dst.load_state_dict(sd)
        draft.model.norm.weight.copy_(target.model.norm.weight)
        draft.model.embed_tokens.weight = target.model.embed_tokens.weight  # shared, not copied
    draft.lm_head.weight = draft.model.embed_tokens.weight
    return draft


def grow_draft(draft: torch.nn.Module, state: dict[str, torch.Tensor]) -> list[int]:
    """Load a trained draft with fewer layers (``state``, as trainable_state stores it) into the deeper
    ``draft`` without changing what it computes: its layers go to evenly spread positions (the first stays
    first) and every other layer keeps its target initialisation but with its two output projections
    (o_proj, down_proj) zero, so it adds nothing to the residual stream until training moves them.
    Returns the positions of the old layers."""
    old = 1 + max(int(k.split(".")[2]) for k in state if k.startswith("model.layers."))
    new = draft.config.num_hidden_layers
    if old > new:
        raise ValueError(f"cannot grow a {old}-layer draft into {new} layers")
    where = source_layers(new, old)
    moved = {}
    for k, v in state.items():
        if k.startswith("model.layers."):
            parts = k.split(".")
            parts[2] = str(where[int(parts[2])])
            k = ".".join(parts)
        moved[k] = v
    with torch.no_grad():
        for i, layer in enumerate(draft.model.layers):
            if i not in where:
                layer.self_attn.o_proj.weight.zero_()
                layer.mlp.down_proj.weight.zero_()
    _, unexpected = draft.load_state_dict(moved, strict=False)
    if unexpected:
        raise ValueError(f"the smaller draft does not fit this architecture: {unexpected[:2]}")
    return where


def trainable_state(draft: torch.nn.Module) -> dict[str, torch.Tensor]:
    """What the asset stores: everything but the shared embedding / LM head."""
    return {k: v.detach().cpu().contiguous() for k, v in draft.state_dict().items()
            if not k.startswith("model.embed_tokens") and not k.startswith("lm_head")}


def save_draft(draft: torch.nn.Module, folder: Path, dtype: torch.dtype | None = None) -> str:
    """Store the draft's own weights (in ``dtype`` if given, e.g. bfloat16: half the bytes; the loader
    converts them to the target's dtype) and its config; returns the weights' sha256."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    state = trainable_state(draft)
    save_file({k: v.to(dtype) if dtype else v for k, v in state.items()}, str(folder / "draft.safetensors"))
    draft.config.to_json_file(str(folder / "config.json"))
    return sha256(folder / "draft.safetensors")


def sha256(path: Path) -> str:
    from .models import _sha256

    return _sha256(path)


def expected_sha256(path: Path, manifest: Path, rebuild: str) -> str | None:
    """The sha256 a shipped file must have: the one in its folder's manifest.json, else the one shipped in code
    (decoding_core/asset_sums.py, for files under assets/), else None. A manifest that is not JSON is a
    ModelLoadError that says how to rebuild (``rebuild``)."""
    if manifest.exists():
        try:
            digest = json.loads(manifest.read_text()).get("sha256", {}).get(path.name)
        except (OSError, ValueError, AttributeError) as exc:
            raise ModelLoadError(f"{manifest.parent.name}/manifest.json could not be read ({type(exc).__name__}). "
                                 f"Rebuild the asset with {rebuild}.") from exc
        if digest:
            return digest
    from .asset_sums import SUMS

    try:
        return SUMS.get(path.resolve().relative_to(ASSETS.resolve()).as_posix())
    except ValueError:  # not a shipped file
        return None


def check_sha256(path: Path, manifest: Path, rebuild: str) -> None:
    expected = expected_sha256(path, manifest, rebuild)
    if expected and expected != sha256(path):
        raise ModelLoadError(f"{path.name} does not match its recorded sha256 (corrupt or partly written). "
                             f"Rebuild it with {rebuild}.")


def load_embedded_draft(target: LoadedModel, folder: Path = DRAFT_DIR) -> LoadedModel:
    """The shipped draft for the embedded target, on the target's device and dtype."""
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoModelForCausalLM

    weights, config = folder / "draft.safetensors", folder / "config.json"
    for f in (weights, config):
        if not f.exists():
            shown = f.relative_to(ASSETS.parent) if f.is_relative_to(ASSETS.parent) else f
            raise ModelLoadError(f"The draft asset {shown} is missing. Rebuild it with "
                                 f"{REBUILD_DRAFT}, or choose another draft (prompt lookup needs no model).")
    manifest = folder / "manifest.json"
    check_sha256(weights, manifest, REBUILD_DRAFT)
    try:
        cfg = AutoConfig.from_pretrained(str(folder))
    except Exception as exc:  # noqa: BLE001 - OSError / ValueError for a config.json that is not JSON
        raise ModelLoadError(f"The draft's config.json could not be read ({type(exc).__name__}). Rebuild the draft "
                             f"with {REBUILD_DRAFT}.") from exc
    t_cfg = target.model.config
    if cfg.vocab_size != t_cfg.vocab_size or cfg.hidden_size != t_cfg.hidden_size:
        raise ModelLoadError(Msg.of("core.err.draft_for_embedded", target=target.name))
    draft = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
    try:
        state = load_file(str(weights))
    except Exception as exc:  # noqa: BLE001 - safetensors raises its own error types
        raise ModelLoadError(f"{weights.name} could not be read ({exc}). Rebuild it with {REBUILD_DRAFT}.") from exc
    missing, unexpected = draft.load_state_dict(state, strict=False)
    missing = [m for m in missing if not m.startswith(("model.embed_tokens", "lm_head"))]
    if missing or unexpected:
        raise ModelLoadError(f"{weights.name} does not fit the draft architecture (missing {missing[:2]}, "
                             f"unexpected {unexpected[:2]}). Rebuild it with {REBUILD_DRAFT}.")
    draft = draft.to(device=target.device, dtype=target.dtype)
    draft.model.embed_tokens.weight = target.model.get_input_embeddings().weight  # shared with the target
    draft.lm_head.weight = draft.model.embed_tokens.weight
    draft.eval().requires_grad_(False)
    if target.device.type == "cpu":
        draft_layout(draft)  # int8 weights where the kernel runs (layout.draft_weights)
    draft.generation_config = target.model.generation_config
    name = f"SmolLM2 {cfg.num_hidden_layers}-layer draft (shipped)"
    loaded = LoadedModel(target.tokenizer, draft, name, target.device, target.dtype, 0.0)
    loaded = with_lean(loaded)
    vocab = folder / "vocab.safetensors"
    if vocab.exists():
        check_sha256(vocab, manifest, REBUILD_DRAFT)
        try:
            d2t = load_file(str(vocab))["d2t"]
        except Exception as exc:  # noqa: BLE001 - safetensors raises its own error types
            raise ModelLoadError(f"{vocab.name} could not be read ({exc}). Rebuild it with {REBUILD_DRAFT}.") from exc
        loaded = with_draft_vocab(loaded, d2t)
    return loaded


LEAN_MAX_LAYERS = 8  # the lean forward copies q/k/v and gate/up into fused matrices: small drafts only


def with_lean(draft: LoadedModel) -> LoadedModel:
    """The draft with its lean forward (decoding_core/lean.py) where it runs on the CPU, has at most
    LEAN_MAX_LAYERS layers and an architecture the lean forward covers; DECODING_LAB_LEAN=off keeps
    transformers' forward (for comparisons)."""
    import dataclasses
    import os

    from .lean import LeanLlama

    cfg = draft.model.config
    if (draft.device.type != "cpu" or os.environ.get("DECODING_LAB_LEAN", "").lower() == "off"
            or getattr(cfg, "num_hidden_layers", LEAN_MAX_LAYERS + 1) > LEAN_MAX_LAYERS
            or LeanLlama.unsupported(draft.model)):
        return draft
    return dataclasses.replace(draft, lean=LeanLlama(draft.model))


def with_draft_vocab(draft: LoadedModel, d2t: torch.Tensor) -> LoadedModel:
    """The same draft proposing only the V_d tokens ``d2t`` (target ids): its LM head restricted to those
    rows, so a draft step computes V_d logits instead of the full vocabulary's (EAGLE-3's reduced
    vocabulary). The weights are shared with the draft's own LM head; nothing is trained."""
    import dataclasses

    d2t = torch.as_tensor(d2t, dtype=torch.long, device=draft.device)
    if d2t.dim() != 1 or d2t.numel() < 1 or int(d2t.max()) >= draft.vocab_size or int(d2t.min()) < 0:
        raise ModelLoadError(f"A draft vocabulary must list token ids below {draft.vocab_size}.")
    full = draft.model.get_output_embeddings()
    head = torch.nn.Linear(full.in_features, int(d2t.numel()), bias=False, device=draft.device, dtype=draft.dtype)
    with torch.no_grad():
        head.weight.copy_(full.weight[d2t])
    head.requires_grad_(False)
    if draft.device.type == "cpu":
        head = draft_layout(torch.nn.Sequential(head))[0]
    return dataclasses.replace(draft, draft_vocab=d2t, draft_head=head,
                               name=f"{draft.name}, {d2t.numel():,}-token draft vocabulary")


def check_same_tokenizer(target: LoadedModel, draft: LoadedModel) -> None:
    """A draft must tokenize exactly as the target does (same vocabulary, same ids)."""
    if draft.tokenizer is target.tokenizer:
        return
    a, b = target.tokenizer.get_vocab(), draft.tokenizer.get_vocab()
    if a != b:
        only = sum(1 for tok, i in a.items() if b.get(tok) != i)  # the target's tokens the draft gives another id or none
        only += sum(1 for tok in b if tok not in a)  # ... and the draft's tokens the target does not have
        raise ModelLoadError(Msg.of("core.err.tokenizer_mismatch", draft=draft.name, target=target.name, nd=len(b),
                                    nt=len(a), differ=only))
    if draft.vocab_size < target.vocab_size:
        raise ModelLoadError(f"The draft's output layer ({draft.vocab_size}) is smaller than the target's "
                             f"({target.vocab_size}).")


def load_draft(target: LoadedModel, source: str) -> LoadedModel | None:
    """"embedded" = the shipped draft; "prompt-lookup" = no model (None); else a hub id or folder."""
    if source == "prompt-lookup":
        return None
    if source == "embedded":
        return load_embedded_draft(target)
    draft = load_model(source, device=target.device.type, dtype=str(target.dtype).replace("torch.", ""))
    check_same_tokenizer(target, draft)
    return with_lean(draft)


def draft_manifest(folder: Path = DRAFT_DIR) -> dict:
    """The shipped draft's manifest ({} when it has none or it cannot be read)."""
    import json

    try:
        return json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return {}
