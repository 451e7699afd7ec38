"""The model is shared by every session of a server: no decoding may leave state on it (weights, buffers,
attributes, hooks, config, training mode) - issue 15, item 5."""
import hashlib

import torch

from decoding_core.settings import (Beam, BeamSettings, Eagle, Greedy, RunSettings, Sample, SamplingSettings,
                                    Speculative, StochasticBeam)
from decoding_core.strategies import build_decoder, direct_loaders


def fingerprint(lm) -> dict:
    net = lm.model
    h = hashlib.sha256()
    for name, t in list(net.state_dict(keep_vars=True).items()):
        h.update(name.encode())
        h.update(t.detach().float().contiguous().cpu().numpy().tobytes())
    hooks = sum(len(m._forward_hooks) + len(m._forward_pre_hooks) + len(m._backward_hooks) for m in net.modules())
    attrs = {name: sorted(vars(m).keys()) for name, m in net.named_modules()}
    return {"tensors": h.hexdigest(), "hooks": hooks, "attrs": attrs, "training": net.training,
            "config": net.config.to_json_string(), "grad": any(p.requires_grad for p in net.parameters()),
            "lm_attrs": sorted(vars(lm).keys())}


def test_decoding_leaves_the_shared_model_as_it_was(embedded):
    before = fingerprint(embedded)
    prompt = embedded.encode("Name three rivers.", chat=True)
    run = RunSettings(6, seed=3, stop_at_eos=False)
    loaders = direct_loaders()
    for strategy in (Greedy(), Sample(SamplingSettings(temperature=0.8, top_p=0.9)), Beam(BeamSettings(3, rp=0.5)),
                     StochasticBeam(3, 1.0), Speculative("embedded", 3), Speculative("prompt-lookup", 3),
                     Speculative("embedded", 3, rule="sample", sampling=SamplingSettings(temperature=0.8)),
                     Eagle(head="eagle1", total_tokens=12, depth=3)):
        build_decoder(embedded, strategy, run, loaders).start(prompt).run()
    with torch.no_grad():
        after = fingerprint(embedded)
    assert after == before
