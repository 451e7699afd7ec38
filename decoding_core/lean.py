"""A lean forward for small Llama-family drafts on the CPU.

A speculative draft runs one token at a time, N times per step, and a 2-4 layer draft's matrices are
small: through transformers' modules most of a draft step is Python and dispatch (about 40 small
operations per layer, each with its own checks, views and masks), not arithmetic. ``LeanLlama`` runs
the same computation with what the step needs and nothing else:

- q, k and v as one matrix product, gate and up as one (the weights concatenated once);
- RoPE from a table of transformers' own cos / sin (``rotary_emb``), applied to q and k together;
- a preallocated KV cache (``LeanCache``) written in place, cropped by moving its length back;
- ``scaled_dot_product_attention`` with grouped heads, and a causal mask only when several tokens
  are fed at once;
- ``F.rms_norm`` for the norms (the same formula as transformers' LlamaRMSNorm).

It computes what the model computes (equal to transformers' forward to float rounding, tested). Models it
does not cover (biases, another attention or RoPE type, another activation) keep transformers' forward:
``LeanLlama.unsupported`` says why.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def rope_table(rotary, table, end: int, device, dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """cos, sin [positions, head_dim] covering positions 0..end-1, from a transformers rotary module's own
    values: ``table`` when it already covers them on ``device`` in ``dtype``, else a new one (at least twice
    as long). One tuple, replaced whole by its owner, so decoders in other threads may share the model."""
    if table is not None and table[0].shape[0] >= end and table[0].device == device and table[0].dtype == dtype:
        return table
    n = max(end, 256, 2 * (0 if table is None else table[0].shape[0]))
    cos, sin = rotary(torch.zeros(1, dtype=dtype, device=device), torch.arange(n, device=device)[None])
    return cos[0], sin[0]


class LeanCache:
    """Keys and values of every layer, preallocated [layers, kv_heads, capacity, head_dim] and written in
    place; ``crop`` moves the length back. Grows (doubling) when a feed would overflow. Answers
    ``get_seq_length`` and ``crop(-n)`` like a transformers cache, so fastpath.crop_to works on it."""

    def __init__(self, layers: int, kv_heads: int, head_dim: int, capacity: int, dtype, device):
        shape = (layers, kv_heads, max(1, capacity), head_dim)
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)
        self.length = 0

    def get_seq_length(self) -> int:
        return self.length

    def crop(self, n: int) -> None:
        """Keep the first ``n`` positions (a negative ``n`` removes that many, as transformers' crop)."""
        self.length = max(0, self.length + n if n < 0 else min(n, self.length))

    def reserve(self, need: int) -> None:
        cap = self.k.shape[2]
        if need <= cap:
            return
        new = max(need, 2 * cap)
        for name in ("k", "v"):
            old = getattr(self, name)
            grown = old.new_zeros(old.shape[0], old.shape[1], new, old.shape[3])
            grown[:, :, :cap] = old
            setattr(self, name, grown)


class LeanLlama:
    """The decoder stack of a Llama-family causal LM as a handful of tensor operations per layer (see the
    module docstring). ``hidden(ids, cache)`` returns the final-normed hidden states of the fed tokens;
    the caller applies whichever LM head it uses (a draft's reduced-vocabulary head, say)."""

    @staticmethod
    def unsupported(model: torch.nn.Module) -> str | None:
        """Why ``model`` cannot run lean (None: it can)."""
        cfg = getattr(model, "config", None)
        if cfg is None or getattr(cfg, "model_type", None) != "llama":
            return "not a Llama-architecture model"
        if getattr(cfg, "attention_bias", False) or getattr(cfg, "mlp_bias", False):
            return "has biases"
        if getattr(cfg, "hidden_act", "silu") != "silu":
            return f"activation {cfg.hidden_act}"
        rope = getattr(cfg, "rope_parameters", None) or getattr(cfg, "rope_scaling", None) or {}
        if (rope.get("rope_type") or rope.get("type") or "default") != "default":
            return f"RoPE type {rope.get('rope_type') or rope.get('type')}"
        if getattr(cfg, "sliding_window", None):
            return "sliding-window attention"
        return None

    def __init__(self, model: torch.nn.Module):
        why = self.unsupported(model)
        if why:
            raise ValueError(f"the lean forward does not cover this model: {why}")
        from .layout import draft_layout, weights_of

        cfg, inner = model.config, model.model
        self.heads = cfg.num_attention_heads
        self.kv_heads = getattr(cfg, "num_key_value_heads", None) or self.heads
        self.head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // self.heads
        self.hidden_size = cfg.hidden_size
        self.eps = float(cfg.rms_norm_eps)
        self.scale = self.head_dim ** -0.5
        self.embed = inner.embed_tokens
        self.norm = inner.norm.weight
        self.rotary = inner.rotary_emb
        self.device, self.dtype = self.norm.device, self.norm.dtype
        self.layers = []
        with torch.no_grad():
            for layer in inner.layers:
                at, mlp = layer.self_attn, layer.mlp
                qkv = torch.nn.Linear(self.hidden_size, at.q_proj.out_features + 2 * at.k_proj.out_features,
                                      bias=False, device=self.device, dtype=self.dtype)
                qkv.weight.copy_(torch.cat([at.q_proj.weight, at.k_proj.weight, at.v_proj.weight]))
                up = torch.nn.Linear(self.hidden_size, 2 * mlp.up_proj.out_features, bias=False, device=self.device,
                                     dtype=self.dtype)
                up.weight.copy_(torch.cat([mlp.gate_proj.weight, mlp.up_proj.weight]))
                fused = torch.nn.Sequential(qkv.requires_grad_(False), up.requires_grad_(False))
                if self.device.type == "cpu":
                    fused = draft_layout(fused, weights_of(at.q_proj))  # as the draft's own weights
                self.layers.append((layer.input_layernorm.weight, fused[0], at.o_proj,
                                    layer.post_attention_layernorm.weight, fused[1], mlp.down_proj,
                                    mlp.up_proj.out_features))
        self._table: tuple[torch.Tensor, torch.Tensor] | None = None

    def new_cache(self, capacity: int) -> LeanCache:
        return LeanCache(len(self.layers), self.kv_heads, self.head_dim, capacity, self.dtype, self.device)

    def _rope(self, end: int) -> tuple[torch.Tensor, torch.Tensor]:
        """cos, sin [positions, head_dim] for positions 0..end-1 (transformers' own values, kept as a table)."""
        table = self._table = rope_table(self.rotary, self._table, end, self.device, self.dtype)
        return table

    @torch.inference_mode()
    def hidden(self, ids: torch.Tensor, cache: LeanCache) -> torch.Tensor:
        """Feed ``ids`` (1-D, or [1, T]) after what ``cache`` holds; the final-normed hidden states [T, H]."""
        ids = ids.reshape(-1)
        t, start = ids.numel(), cache.length
        end = start + t
        cache.reserve(end)
        cos_all, sin_all = self._rope(end)
        cos, sin = cos_all[start:end, None], sin_all[start:end, None]   # [T, 1, D]
        nh, nkv, d, half = self.heads, self.kv_heads, self.head_dim, self.head_dim // 2
        mask = None
        if t > 1:
            mask = torch.arange(end, device=self.device)[None] <= torch.arange(start, end, device=self.device)[:, None]
        x = self.embed(ids)                                               # [T, H]
        for i, (w_in, qkv, o, w_post, gate_up, down, inter) in enumerate(self.layers):
            h = F.rms_norm(x, (self.hidden_size,), w_in, self.eps)
            heads = qkv(h).view(t, nh + 2 * nkv, d)
            qk = heads[:, : nh + nkv]
            qk = qk * cos + torch.cat((-qk[..., half:], qk[..., :half]), -1) * sin
            cache.k[i, :, start:end] = qk[:, nh:].transpose(0, 1)
            cache.v[i, :, start:end] = heads[:, nh + nkv:].transpose(0, 1)
            q = qk[:, :nh].transpose(0, 1)[None]                          # [1, nh, T, D]
            att = F.scaled_dot_product_attention(q, cache.k[i, :, :end][None], cache.v[i, :, :end][None],
                                                 attn_mask=mask, scale=self.scale, enable_gqa=nkv != nh)
            x = x + o(att[0].transpose(0, 1).reshape(t, nh * d))
            h = F.rms_norm(x, (self.hidden_size,), w_post, self.eps)
            g = gate_up(h)
            x = x + down(F.silu(g[:, :inter]) * g[:, inter:])
        cache.length = end
        return F.rms_norm(x, (self.hidden_size,), self.norm, self.eps)
