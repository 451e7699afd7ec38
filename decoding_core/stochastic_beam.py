"""Stochastic beam search (Kool, van Hoof & Welling 2019, "Stochastic Beams and Where to Find Them").

Beam search on Gumbel-perturbed log-probabilities, with each child's perturbation conditioned on its
parent's: the k sequences it returns are a sample WITHOUT replacement from the model's distribution
over complete sequences (ended by EOS, or cut at max new tokens), ordered by their keys; the first is
an exact sample from that distribution. One step, for every running hypothesis y with log-prob phi_y
and key T_y (the root: phi = 0, T = 0):

    phi_c  = phi_y + log p(c | y)                 for every child token c
    G_c    = phi_c + Gumbel(0)                    fresh noise, the Gumbel-top-k trick
    Z      = max_c G_c
    Gt_c   = -log(exp(-T_y) - exp(-Z) + exp(-G_c))   the children's keys, truncated at T_y (section 4)

then keep the k children with the largest keys over all hypotheses. A hypothesis that ended in EOS is
carried with its key (its only child is EOS at log-prob 0, whose truncated key is T_y itself).
"""
from __future__ import annotations

import time

import torch
import torch.nn.functional as F

from .beam import BeamSearchDecoder, BeamStep, Candidate, Hypothesis, per_row_top_k
from .models import LoadedModel
from .samplers import gumbel_noise
from .settings import BeamSettings, SamplingSettings


def truncated_gumbel(g_phi: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """Keys of the children: Gumbels g_phi [n, V] conditioned on their maximum equalling the parents'
    keys t [n] (Kool et al. 2019, appendix B, numerically stable form). The argmax child gets t exactly;
    impossible children (-inf) stay -inf."""
    z = g_phi.max(dim=-1, keepdim=True).values
    u = t[:, None] - g_phi + torch.log1p(-torch.exp(g_phi - z))
    return t[:, None] - F.relu(u) - torch.log1p(torch.exp(-u.abs()))


class StochasticBeamDecoder(BeamSearchDecoder):
    """k sequences sampled without replacement; steps and records as beam search (in-beam EOS)."""

    strategy = "stochastic-beam"
    width_within_vocab = False  # k sequences may outnumber the tokens: the beam fills over the steps

    def __init__(self, lm: LoadedModel, num_beams: int = 4, max_new_tokens: int = 32, seed: int = 0,
                 stop_at_eos: bool = True, temperature: float = 1.0, backend: str = "eager"):
        SamplingSettings(temperature=temperature)  # validates the temperature
        super().__init__(lm, BeamSettings(num_beams=num_beams, eos_policy="in-beam"), max_new_tokens, seed,
                         stop_at_eos, backend=backend)
        self.temperature = float(temperature)

    def _reset(self):
        super()._reset()
        self.keys = torch.zeros(1, dtype=torch.float32)   # T of each running hypothesis (root: 0)

    def _key_order(self) -> list[int]:
        return torch.argsort(self.keys, descending=True, stable=True).tolist() if self.running else []

    def hypotheses(self) -> list[Hypothesis]:
        """The k samples, in key order (the first is a sample from the sequence distribution)."""
        return [self.running[i] for i in self._key_order()]

    def extra_output(self) -> dict:
        """The k samples in key order, each with its key: the order is the sampling order (the first is a sample from
        the sequence distribution), not the score's, so the scores need not be sorted."""
        return {"hypotheses": [{"tokens": list(self.running[i].tokens), "score": self.running[i].score,
                                "finished": self.running[i].finished, "key": float(self.keys[i])}
                               for i in self._key_order()],
                "hypotheses_order": "Gumbel key, descending (sampling order)"}

    def _beam_step(self, t0) -> BeamStep:
        k = self.k
        parent_nodes = [h.node for h in self.running]
        logp = self._log_probs()                                        # [n, V], ended rows: 0 at EOS
        phi = logp + self.run_scores[:, None]
        g_phi = phi + gumbel_noise(phi.shape, self.generator, self.generator.device).to(phi.device)
        keys = truncated_gumbel(g_phi, self.keys)
        v = logp.shape[1]
        top_keys, top_idx = per_row_top_k(keys, k)                      # the global top-k is among these
        m = top_idx.numel()
        parents, tokens = (top_idx // v).tolist(), (top_idx % v).tolist()
        scores = [float(phi[p, t]) for p, t in zip(parents, tokens)]
        token_logps = [float(logp[p, t]) for p, t in zip(parents, tokens)]
        self.beam_steps += 1
        at_limit = len(self.prefix) + self.beam_steps >= self.max_new_tokens
        nodes = list(range(self.next_node, self.next_node + m))
        self.next_node += m
        self.candidates_scored += m
        status, new_running, new_rows, new_keys = {}, [], [], []
        for i in range(m):
            if i >= k:
                status[i] = "off-top-k"
                continue
            parent = self.running[parents[i]]
            if parent.finished:  # EOS at log-prob 0: carried unchanged with its key
                status[i] = "carried"
                new_running.append(parent)
                new_rows.append(-1)
            else:
                ends = tokens[i] in self.eos_ids
                status[i] = "finished" if ends else "kept"
                new_running.append(Hypothesis(nodes[i], parent.tokens + (tokens[i],), scores[i], ends))
                new_rows.append(-1 if ends else self.rows[parents[i]])
            new_keys.append(float(top_keys[i]))
        rows_fed = sum(1 for r in self.rows if r >= 0)
        self.running = new_running
        self.run_scores = torch.tensor([h.score for h in new_running], dtype=torch.float32)
        self.keys = torch.tensor(new_keys, dtype=torch.float32)
        self.stopped = not new_running or all(h.finished for h in new_running) or at_limit
        if not self.stopped:
            self._advance(new_rows)
        best = self.hypotheses()
        self.tokens = list(best[0].tokens) if best else list(self.prefix)
        cands = tuple(Candidate(nodes[i], parent_nodes[parents[i]], tokens[i], self.lm.token_text(tokens[i]),
                                token_logps[i], scores[i], i, status[i], key=float(top_keys[i])) for i in range(m))
        return BeamStep(len(self.history), "beam", cands, tuple(best), (), rows_fed, time.perf_counter() - t0)
