"""The EAGLE draft head (Li et al. 2024): predicts the target's next FEATURE, not its next token.

Input at position i: fc(concat(embed(t_{i+1}), f_i)), fc: 2H -> H, where f_i is the target's last
hidden state (after its final norm) and t_{i+1} the token that FOLLOWS it (the one-token shift: the
head knows which token was actually sampled, which removes the uncertainty a feature alone has).
Then one Llama decoder layer of the target's config WITHOUT its input layernorm, and no final norm.
Token logits = the target's own frozen lm_head(f_hat). Only fc + the layer are trained and stored.

Public EAGLE checkpoints (config.json + pytorch_model.bin / model.safetensors with keys
``fc.weight``, ``fc.bias``, ``layers.0.*``) load with ``load_eagle_checkpoint``.
"""
from __future__ import annotations

import json
from pathlib import Path

import torch
from torch import nn

from .draft import ASSETS, check_sha256, sha256
from .layout import draft_layout
from .models import LoadedModel, ModelLoadError

EAGLE_DIR = ASSETS / "eagle"
REBUILD_EAGLE = "python scripts/train_eagle.py (see assets/eagle/manifest.json for the exact command)"


class EagleHead(nn.Module):
    """fc (2H -> H) + one decoder layer without input norm. Shapes: features, embeds [B, L, H]."""

    kind = "eagle1"
    d2t = None  # drafts over the target's whole vocabulary with the target's own LM head

    def __init__(self, config):
        super().__init__()
        from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRotaryEmbedding

        self.config = config
        h = config.hidden_size
        self.fc = nn.Linear(2 * h, h, bias=True)
        self.layer = LlamaDecoderLayer(config, layer_idx=0)
        self.layer.input_layernorm = nn.Identity()  # EAGLE drops it: fc's output is not a residual stream
        self.rotary = LlamaRotaryEmbedding(config)

    def forward(self, features: torch.Tensor, embeds: torch.Tensor, position_ids: torch.Tensor,
                attention_mask: torch.Tensor | None = None, cache=None) -> torch.Tensor:
        """f_hat [B, L, H] for inputs (f_i, embed(t_{i+1})); ``attention_mask`` is a 4D additive mask
        [B, 1, L, K] over the cache + these positions (None = plain causal, no cache)."""
        x = self.fc(torch.cat([embeds, features], dim=-1))
        pos = self.rotary(x, position_ids)
        if attention_mask is None:
            L = x.shape[1]
            allowed = torch.ones(L, L, dtype=torch.bool, device=x.device).tril()
            attention_mask = torch.zeros(L, L, dtype=x.dtype, device=x.device).masked_fill(
                ~allowed, torch.finfo(x.dtype).min)[None, None]
        return self.layer(x, attention_mask=attention_mask, position_ids=position_ids, cache=cache,
                          use_cache=cache is not None, position_embeddings=pos)


def head_state(head: EagleHead) -> dict[str, torch.Tensor]:
    """The stored weights, in the public EAGLE layout (fc.*, layers.0.*)."""
    out = {}
    for k, v in head.state_dict().items():
        if k.startswith("rotary."):
            continue
        out[k.replace("layer.", "layers.0.", 1) if k.startswith("layer.") else k] = v.detach().cpu().contiguous()
    return out


def save_head(head: EagleHead, folder: Path) -> str:
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    save_file(head_state(head), str(folder / "model.safetensors"))
    head.config.to_json_file(str(folder / "config.json"))
    return sha256(folder / "model.safetensors")


def load_eagle_checkpoint(target: LoadedModel, folder: Path | str) -> EagleHead:
    """A head in the public EAGLE layout for ``target``; checks that its sizes fit the target."""
    from transformers import LlamaConfig

    folder = Path(folder)
    cfg_path = folder / "config.json"
    weights = next((folder / n for n in ("model.safetensors", "pytorch_model.bin") if (folder / n).exists()), None)
    if not cfg_path.exists() or weights is None:
        raise ModelLoadError(f"No EAGLE head in {folder} (need config.json and model.safetensors or "
                             f"pytorch_model.bin). For the embedded model rebuild it with {REBUILD_EAGLE}.")
    try:
        raw = json.loads(cfg_path.read_text())
        raw.get("hidden_size")
    except (OSError, ValueError, AttributeError) as exc:
        raise ModelLoadError(f"The EAGLE head's config.json in {folder} could not be read ({type(exc).__name__}). "
                             f"For the embedded model rebuild it with {REBUILD_EAGLE}.") from exc
    t_cfg = target.model.config
    if raw.get("hidden_size") != t_cfg.hidden_size:
        raise ModelLoadError(f"The EAGLE head's hidden size ({raw.get('hidden_size')}) does not match "
                             f"{target.name}'s ({t_cfg.hidden_size}): it was trained for another target.")
    merged = t_cfg.to_dict()
    for key in ("intermediate_size", "num_attention_heads", "num_key_value_heads", "head_dim", "rms_norm_eps",
                "hidden_act", "attention_bias", "mlp_bias"):
        if key in raw:
            merged[key] = raw[key]
    cfg = LlamaConfig.from_dict(merged)
    cfg._attn_implementation = t_cfg._attn_implementation
    head = EagleHead(cfg)
    if weights.suffix == ".safetensors":
        from safetensors.torch import load_file

        try:
            state = load_file(str(weights))
        except Exception as exc:  # noqa: BLE001
            raise ModelLoadError(f"{weights} could not be read ({exc}). Rebuild it with {REBUILD_EAGLE}.") from exc
    else:
        state = torch.load(weights, map_location="cpu", weights_only=True)
    state = {("layer." + k[len("layers.0."):]) if k.startswith("layers.0.") else k: v for k, v in state.items()}
    state = {k: v for k, v in state.items() if k.startswith(("fc.", "layer."))}
    missing, unexpected = head.load_state_dict(state, strict=False)
    missing = [m for m in missing if not m.startswith("rotary.") and "input_layernorm" not in m]
    if missing or unexpected:
        raise ModelLoadError(f"{weights} is not an EAGLE head for this target (missing {missing[:2]}, unexpected "
                             f"{unexpected[:2]}).")
    head = head.to(device=target.device, dtype=target.dtype).eval().requires_grad_(False)
    return draft_layout(head) if target.device.type == "cpu" else head


def load_embedded_head(target: LoadedModel, folder: Path = EAGLE_DIR) -> EagleHead:
    weights = folder / "model.safetensors"
    if weights.exists():
        check_sha256(weights, folder / "manifest.json", REBUILD_EAGLE)
    return load_eagle_checkpoint(target, folder)
