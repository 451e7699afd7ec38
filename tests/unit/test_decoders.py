"""The step-wise contract on a tiny model: greedy equals generate, seeds reproduce, errors are clear."""
import dataclasses
import math

import pytest
import torch
from transformers import GenerationConfig

from decoding_core.decoders import AutoregressiveDecoder, greedy_decoder, sampling_decoder
from decoding_core.processors import SamplingSettings


def hf_greedy(lm, prompt, n, **kw):
    """transformers' greedy generate for n tokens, not stopping at EOS (as our stop_at_eos=False)."""
    saved = lm.model.generation_config.eos_token_id
    lm.model.generation_config.eos_token_id = None  # generate merges the model's EOS back in otherwise
    try:
        gc = GenerationConfig(do_sample=False, max_new_tokens=n, pad_token_id=0, **kw)
        out = lm.model.generate(torch.tensor([prompt]), generation_config=gc)
    finally:
        lm.model.generation_config.eos_token_id = saved
    return out[0, len(prompt):].tolist()


@pytest.mark.parametrize("prompt", [[1, 5, 9], [1, 30, 31, 32, 33, 4], [7]])
def test_greedy_equals_generate(tiny_lm, prompt):
    dec = greedy_decoder(tiny_lm, max_new_tokens=20, stop_at_eos=False).start(prompt)
    assert dec.run().tokens == hf_greedy(tiny_lm, prompt, 20)
    assert dec.target_forwards == 20


def test_greedy_with_repetition_penalty_equals_generate(tiny_lm):
    dec = AutoregressiveDecoder(tiny_lm, SamplingSettings(repetition_penalty=1.5), None, 15, stop_at_eos=False)
    assert dec.start([1, 5, 9]).run().tokens == hf_greedy(tiny_lm, [1, 5, 9], 15, repetition_penalty=1.5)


def test_step_records_are_small_and_consistent(tiny_lm):
    dec = sampling_decoder(tiny_lm, SamplingSettings(temperature=0.8, top_k=10), "gumbel", 8, seed=3,
                           stop_at_eos=False).start([1, 2, 3])
    rec = dec.step()
    assert rec.index == 0 and rec.token_id == dec.tokens[0]
    assert len(rec.top_ids) == 20 and rec.kept == 10
    assert abs(sum(rec.top_processed) - 1.0) < 1e-5  # top-10 kept, all inside the top-20 slice
    assert rec.prob > 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.token_id = 5


def test_same_seed_same_tokens_other_seed_differs(tiny_lm):
    s = SamplingSettings(temperature=1.5)
    run = lambda seed: sampling_decoder(tiny_lm, s, "multinomial", 30, seed=seed, stop_at_eos=False).start([1, 4]).run().tokens  # noqa: E731
    assert run(11) == run(11)
    assert run(11) != run(12)


def test_restart_resets_history_and_cache(tiny_lm):
    dec = greedy_decoder(tiny_lm, max_new_tokens=5, stop_at_eos=False)
    first = dec.start([1, 5]).run().tokens
    assert dec.start([1, 5]).run().tokens == first
    assert len(dec.history) == 5


def test_eos_stops_and_contract_errors(tiny_lm):
    dec = greedy_decoder(tiny_lm, max_new_tokens=4)
    with pytest.raises(RuntimeError, match="start"):
        dec.step()
    dec.eos_ids = {hf_greedy(tiny_lm, [1, 5], 1)[0]}  # make the first greedy token the EOS
    dec.start([1, 5])
    dec.step()
    assert dec.done and dec.history[-1].finished
    with pytest.raises(RuntimeError, match="done"):
        dec.step()
    with pytest.raises(ValueError, match="empty"):
        dec.start([])
    with pytest.raises(ValueError, match="max new tokens"):
        greedy_decoder(tiny_lm, max_new_tokens=0)
    with pytest.raises(ValueError, match="context"):
        greedy_decoder(tiny_lm, max_new_tokens=300).start([1])


def test_entropy_in_nats_and_never_negative():
    from decoding_core.decoders import entropy

    assert entropy(torch.full((4,), 0.25)) == pytest.approx(math.log(4))
    assert entropy(torch.tensor([0.5, 0.5, 0.0])) == pytest.approx(math.log(2))
    one_hot = torch.tensor([1.0000001, 0.0, 0.0])  # mass rounded just above 1: -p log p < 0
    assert entropy(one_hot) == 0.0
    assert f"{entropy(one_hot):.2f}" == "0.00"
