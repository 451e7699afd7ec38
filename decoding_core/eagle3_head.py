"""The EAGLE-3 draft head (Li et al. 2025): fused multi-layer features, a reduced vocabulary, training-time test.

Differences from the EAGLE-1 head (eagle_head.py), in the order a token meets them:
- Features. The target's hidden states ENTERING three layers (low, middle, high; for the embedded
  30-layer SmolLM2: layers 2, 15 and 27) are concatenated and projected, g_j = fc([h_low; h_mid;
  h_high]_j), fc: 3H -> H (no bias). EAGLE-1 reads only the last layer's output.
- The layer. Its input at position j is [input_norm(embed(t_{j+1})); hidden_norm(g_j)] (2H wide):
  q/k/v project from 2H, the residual stream is g_j. Then the usual post-attention norm and MLP, a
  final norm, and the head's OWN LM head over a reduced vocabulary of V_d tokens.
- Vocabulary. ``d2t[i]`` is the target id of draft token i: the V_d most frequent tokens of the
  target's answers in the training corpus (the manifest gives the coverage). The draft proposes
  only these; the target still verifies in its full vocabulary.
- Deeper nodes. A drafted node feeds the head's own output hidden state (before the final norm) in
  place of g_j. Training-time test (``unrolled``) trains exactly this: the head is run K times over
  a sequence, step k feeding step k-1's outputs, each query seeing the true prefix causally and its
  own k - 1 predicted ancestors (the "diagonal" keys), with loss weights 0.8^k.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F
from transformers.models.llama.modeling_llama import LlamaMLP, LlamaRMSNorm, LlamaRotaryEmbedding, apply_rotary_pos_emb

from .draft import ASSETS, check_sha256, sha256
from .layout import draft_layout, weights_of
from .models import LoadedModel, ModelLoadError

EAGLE3_DIR = ASSETS / "eagle3"
REBUILD_EAGLE3 = "python scripts/train_eagle3.py (see assets/eagle3/manifest.json for the exact command)"


def _version(w: torch.Tensor) -> int:
    """The in-place version counter of ``w`` (inference tensors have none and cannot change: 0)."""
    return 0 if w.is_inference() else w._version


def default_feature_layers(num_layers: int) -> tuple[int, int, int]:
    """Hidden states entering layers 2, L/2 and L-3 (EAGLE-3's choice; 2, 15, 27 for 30 layers), kept
    within 0..L for very shallow test models."""
    return tuple(min(max(i, 0), num_layers) for i in (2, num_layers // 2, num_layers - 3))


class Eagle3Head(nn.Module):
    """fc (3H -> H) + one 2H-input decoder layer + final norm + LM head over V_d draft tokens."""

    kind = "eagle3"

    def __init__(self, config, d2t: torch.Tensor, feature_layers: tuple[int, ...] | None = None):
        super().__init__()
        self.config = config
        h = config.hidden_size
        self.n_heads = config.num_attention_heads
        self.n_kv = getattr(config, "num_key_value_heads", None) or self.n_heads
        self.head_dim = getattr(config, "head_dim", None) or h // self.n_heads
        self.feature_layers = tuple(feature_layers or default_feature_layers(config.num_hidden_layers))
        self.fc = nn.Linear(len(self.feature_layers) * h, h, bias=False)
        self.input_norm = LlamaRMSNorm(h, eps=config.rms_norm_eps)
        self.hidden_norm = LlamaRMSNorm(h, eps=config.rms_norm_eps)
        self.q_proj = nn.Linear(2 * h, self.n_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(2 * h, self.n_kv * self.head_dim, bias=False)
        self.v_proj = nn.Linear(2 * h, self.n_kv * self.head_dim, bias=False)
        self.o_proj = nn.Linear(self.n_heads * self.head_dim, h, bias=False)
        self.post_norm = LlamaRMSNorm(h, eps=config.rms_norm_eps)
        self.mlp = LlamaMLP(config)
        self.norm = LlamaRMSNorm(h, eps=config.rms_norm_eps)
        self.lm_head = nn.Linear(h, int(d2t.numel()), bias=False)
        self.register_buffer("d2t", d2t.long().clone(), persistent=True)
        self.rotary = LlamaRotaryEmbedding(config)

    # -- features ---------------------------------------------------------------------------------
    def target_features(self, hidden_states: tuple[torch.Tensor, ...]) -> torch.Tensor:
        """g = fc([h_l for l in feature_layers]) from a target forward's ``hidden_states`` (entry i =
        the input of layer i). Shapes: each [B, L, H] -> [B, L, H]."""
        return self.fc(torch.cat([hidden_states[i] for i in self.feature_layers], dim=-1).to(self.fc.weight.dtype))

    # -- one pass (decoding) ----------------------------------------------------------------------
    @staticmethod
    def _rms(norm: nn.Module, x: torch.Tensor, lean: bool) -> torch.Tensor:
        """``norm(x)``; as one ``F.rms_norm`` (the same formula) on the lean decoding path."""
        return F.rms_norm(x, (x.shape[-1],), norm.weight, norm.variance_epsilon) if lean else norm(x)

    def _qkv(self, features, embeds, position_ids, lean: bool = False):
        """q, k (RoPE applied) and v [B, heads, L, D]. ``lean`` (decoding): one fused q/k/v product and the
        RoPE table; otherwise the three projections and the rotary module (training)."""
        x = torch.cat([self._rms(self.input_norm, embeds, lean), self._rms(self.hidden_norm, features, lean)], dim=-1)
        B, L, _ = x.shape
        nh, nkv, d = self.n_heads, self.n_kv, self.head_dim
        if lean:
            heads = self._fused_qkv()(x).view(B, L, nh + 2 * nkv, d).transpose(1, 2)
            q, k, v = heads[:, :nh], heads[:, nh:nh + nkv], heads[:, nh + nkv:]
            cos, sin = self._rope_table(int(position_ids.max()) + 1)
            cos, sin = cos[position_ids], sin[position_ids]
        else:
            q = self.q_proj(x).view(B, L, nh, d).transpose(1, 2)
            k = self.k_proj(x).view(B, L, nkv, d).transpose(1, 2)
            v = self.v_proj(x).view(B, L, nkv, d).transpose(1, 2)
            cos, sin = self.rotary(x, position_ids)
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        return q, k, v

    def _finish(self, features, attn, lean: bool = False):
        B, _, L, _ = attn.shape
        h = features + self.o_proj(attn.transpose(1, 2).reshape(B, L, -1))
        return h + self.mlp(self._rms(self.post_norm, h, lean))

    def forward(self, features: torch.Tensor, embeds: torch.Tensor, position_ids: torch.Tensor,
                attention_mask: torch.Tensor | None = None, cache=None) -> torch.Tensor:
        """Output hidden states [B, L, H] (pre-norm; what a child node feeds back) for inputs features
        (g for true positions, a parent's output for drafted ones) and embeds [B, L, H]. ``attention_mask``:
        a 4D additive mask [B, 1, L, K] over cache + these positions (None = causal, no cache).

        Decoding (no gradient) takes a lean path with the same arithmetic: q/k/v as one matrix product,
        RoPE from a table of the rotary module's own values, the norms as ``F.rms_norm``; grouped-query
        attention never copies the key/value heads (equal to the module path to float rounding, tested)."""
        lean = not torch.is_grad_enabled()
        q, k, v = self._qkv(features, embeds, position_ids, lean)
        if cache is not None:
            k, v = cache.update(k, v, 0)
        gqa = self.n_heads != self.n_kv
        if attention_mask is None:
            attn = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=gqa)
        else:
            attn = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask.to(q.dtype), enable_gqa=gqa)
        return self._finish(features, attn, lean)

    def _fused_qkv(self) -> nn.Module:
        """q_proj, k_proj and v_proj as one Linear (laid out for CPU decoding like the others); rebuilt when
        any of the three weights was replaced or changed in place (training)."""
        ws = (self.q_proj.weight, self.k_proj.weight, self.v_proj.weight)
        state = tuple((id(w), w.data_ptr(), _version(w), w.device, w.dtype) for w in ws) + (weights_of(self.q_proj),)
        fused = self.__dict__.get("_fused")
        if fused is None or fused[0] != state:
            with torch.inference_mode(False), torch.no_grad():  # a normal tensor: the layouts track its version
                lin = nn.Linear(ws[0].shape[1], sum(w.shape[0] for w in ws), bias=False, device=ws[0].device,
                                dtype=ws[0].dtype).requires_grad_(False)
                lin.weight.copy_(torch.cat([w.detach() for w in ws]))
                if lin.weight.device.type == "cpu":
                    lin = draft_layout(nn.Sequential(lin), weights_of(self.q_proj))[0]  # as the head's own
            fused = (state, lin)
            self.__dict__["_fused"] = fused  # not a submodule: not in state_dict, not moved by .to()
        return fused[1]

    def _rope_table(self, end: int) -> tuple[torch.Tensor, torch.Tensor]:
        """cos, sin [positions, head_dim] for positions 0..end-1 from the rotary module itself (lean.rope_table)."""
        from .lean import rope_table

        table = rope_table(self.rotary, self.__dict__.get("_rope"), end, self.fc.weight.device, self.fc.weight.dtype)
        self.__dict__["_rope"] = table
        return table

    def draft_logits(self, out: torch.Tensor) -> torch.Tensor:
        """Logits over the V_d draft tokens [..., V_d] (map an index i to the target's id with d2t[i])."""
        return self.lm_head(self.norm(out))

    # -- training-time test ---------------------------------------------------------------------
    def unrolled(self, features: torch.Tensor, embeds_per_step: list[torch.Tensor]) -> list[torch.Tensor]:
        """Run the head K = len(embeds_per_step) times over whole sequences (training-time test).

        features [B, L, H]: g_j of the true prefix. embeds_per_step[k] [B, L, H]: the embedding of the
        token at j + k + 1 (the input token of step k at index j). Step k's query at index j sits at
        position j + k and attends to step 0's keys at indices <= j (the true prefix) and to steps
        1..k's keys at index j only (its own predicted ancestors): exactly what a chain drafted from j
        sees at decode time. Returns the K output hidden states [B, L, H]."""
        B, L, _ = features.shape
        pos = torch.arange(L, device=features.device).expand(B, L)
        causal = torch.ones(L, L, dtype=torch.bool, device=features.device).tril()
        rep = self.n_heads // self.n_kv
        keys, values, outs = [], [], []
        hidden = features
        for k, emb in enumerate(embeds_per_step):
            q, kk, vv = self._qkv(hidden, emb, pos + k)
            kk, vv = kk.repeat_interleave(rep, dim=1), vv.repeat_interleave(rep, dim=1)
            keys.append(kk)
            values.append(vv)
            scale = 1.0 / math.sqrt(self.head_dim)
            s0 = (q @ keys[0].transpose(-1, -2)) * scale
            s0 = s0.masked_fill(~causal, torch.finfo(s0.dtype).min)
            diag = [(q * keys[i]).sum(-1, keepdim=True) * scale for i in range(1, k + 1)]
            p = torch.softmax(torch.cat([s0, *diag], dim=-1), dim=-1)
            attn = p[..., :L] @ values[0]
            for i in range(1, k + 1):
                attn = attn + p[..., L + i - 1 : L + i] * values[i]
            hidden = self._finish(hidden, attn)
            outs.append(hidden)
        return outs


def eagle3_config(target_config) -> dict:
    """What config.json stores beside the weights (the target's sizes the head was built with)."""
    keys = ("hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads", "head_dim", "rms_norm_eps",
            "hidden_act", "num_hidden_layers", "max_position_embeddings", "rope_theta", "vocab_size")
    return {k: getattr(target_config, k) for k in keys if getattr(target_config, k, None) is not None}


def save_eagle3(head: Eagle3Head, folder: Path, dtype: torch.dtype | None = None) -> str:
    """Weights (in ``dtype`` if given; d2t stays integer) and config.json; returns the weights' sha256."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    state = {k: (v.to(dtype) if dtype is not None and v.is_floating_point() else v).detach().cpu().contiguous()
             for k, v in head.state_dict().items() if not k.startswith("rotary.")}
    save_file(state, str(folder / "model.safetensors"))
    cfg = {**eagle3_config(head.config), "architecture": "Eagle3Head", "feature_layers": list(head.feature_layers),
           "draft_vocab_size": int(head.d2t.numel())}
    (folder / "config.json").write_text(json.dumps(cfg, indent=1) + "\n")
    return sha256(folder / "model.safetensors")


def build_eagle3(target_config, d2t: torch.Tensor, feature_layers=None) -> Eagle3Head:
    from transformers import LlamaConfig

    cfg = LlamaConfig.from_dict(target_config.to_dict())
    cfg._attn_implementation = "sdpa"
    return Eagle3Head(cfg, d2t, feature_layers)


def load_eagle3(target: LoadedModel, folder: Path | str = EAGLE3_DIR) -> Eagle3Head:
    """The EAGLE-3 head in ``folder`` for ``target``: checks the manifest's sha256, the sizes and the draft
    vocabulary against the target; every failure is a ModelLoadError that says what to do."""
    from safetensors.torch import load_file

    folder = Path(folder)
    weights, cfg_path = folder / "model.safetensors", folder / "config.json"
    if not weights.exists() or not cfg_path.exists():
        raise ModelLoadError(f"No EAGLE-3 head in {folder} (need config.json and model.safetensors). Rebuild it "
                             f"with {REBUILD_EAGLE3}, or choose the EAGLE-1 head.")
    check_sha256(weights, folder / "manifest.json", REBUILD_EAGLE3)
    try:
        raw = json.loads(cfg_path.read_text())
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"The EAGLE-3 head's config in {folder} is not valid JSON ({type(exc).__name__}). "
                             f"Rebuild it with {REBUILD_EAGLE3}.") from exc
    t_cfg = target.model.config
    if raw.get("hidden_size") != t_cfg.hidden_size or raw.get("num_hidden_layers") != t_cfg.num_hidden_layers:
        raise ModelLoadError(f"The EAGLE-3 head was trained for another target (hidden size {raw.get('hidden_size')}, "
                             f"{raw.get('num_hidden_layers')} layers); {target.name} has {t_cfg.hidden_size} and "
                             f"{t_cfg.num_hidden_layers}. Choose the EAGLE-1 head or another target.")
    try:
        state = load_file(str(weights))
    except Exception as exc:  # noqa: BLE001 - safetensors raises its own error types
        raise ModelLoadError(f"{weights.name} could not be read ({exc}). Rebuild it with {REBUILD_EAGLE3}.") from exc
    d2t = state.get("d2t")
    if d2t is None or d2t.dim() != 1 or int(d2t.max()) >= target.vocab_size or int(d2t.min()) < 0:
        raise ModelLoadError(f"{weights.name} has no valid draft vocabulary for {target.name}. Rebuild it with "
                             f"{REBUILD_EAGLE3}.")
    head = build_eagle3(t_cfg, d2t, tuple(raw.get("feature_layers") or ()) or None)
    try:
        missing, unexpected = head.load_state_dict(state, strict=False)
    except RuntimeError as exc:  # a tensor of the wrong shape
        raise ModelLoadError(f"{weights.name} does not fit the EAGLE-3 architecture for {target.name} "
                             f"({str(exc).splitlines()[0][:200]}). Rebuild it with {REBUILD_EAGLE3}.") from exc
    missing = [m for m in missing if not m.startswith("rotary.")]
    if missing or unexpected:
        raise ModelLoadError(f"{weights.name} does not fit the EAGLE-3 architecture (missing {missing[:2]}, "
                             f"unexpected {unexpected[:2]}). Rebuild it with {REBUILD_EAGLE3}.")
    head = head.to(device=target.device, dtype=target.dtype).eval().requires_grad_(False)
    head.d2t = head.d2t.long()
    return draft_layout(head) if target.device.type == "cpu" else head
