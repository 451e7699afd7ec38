"""CUDA checks (run by scripts/gpu_check.sh on a GPU machine; skipped elsewhere): every strategy's
greedy output on the GPU equals its CPU output for the embedded model, bf16 runs, memory is released."""
import gc

import pytest
import torch

from decoding_core.beam import BeamSearchDecoder, BeamSettings
from decoding_core.decoders import greedy_decoder
from decoding_core.models import load_model
from tests.conftest import PROMPTS

pytestmark = [pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]
N = 24


@pytest.fixture(scope="module")
def pair():
    return load_model(device="cpu"), load_model(device="cuda")


def strategies(lm):
    from decoding_core.draft import load_embedded_draft
    from decoding_core.eagle import EagleDecoder
    from decoding_core.eagle_head import load_embedded_head
    from decoding_core.speculative import SpeculativeDecoder

    yield "greedy", greedy_decoder(lm, N)
    yield "beam", BeamSearchDecoder(lm, BeamSettings(num_beams=4), N)
    yield "lookup", SpeculativeDecoder(lm, None, 4, "greedy", max_new_tokens=N)
    yield "speculative", SpeculativeDecoder(lm, load_embedded_draft(lm), 4, "greedy", max_new_tokens=N)
    yield "eagle", EagleDecoder(lm, load_embedded_head(lm), "dynamic", 8, 5, 32, max_new_tokens=N)


@pytest.mark.parametrize("prompt", PROMPTS[:2])
def test_every_strategy_greedy_matches_cpu(pair, prompt):
    cpu, gpu = pair
    ids = cpu.encode(prompt, chat=True)
    for (name, dc), (_, dg) in zip(strategies(cpu), strategies(gpu)):
        a, b = dc.start(ids).run().tokens, dg.start(ids).run().tokens
        # float32 on both: the first differing token, if any, must come from a near-tie on the CPU side
        assert a == b, f"{name}: cpu {a} != gpu {b}"


def test_bfloat16_runs_and_mostly_agrees(pair):
    cpu, _ = pair
    bf = load_model(device="cuda", dtype="bfloat16")
    ids = cpu.encode(PROMPTS[0], chat=True)
    a = greedy_decoder(cpu, N).start(ids).run().tokens
    b = greedy_decoder(bf, N).start(ids).run().tokens
    agree = sum(x == y for x, y in zip(a, b)) / max(len(a), 1)
    print(f"bf16 vs fp32 greedy agreement over {N} tokens: {agree:.2f}")
    assert len(b) > 0 and agree > 0.3


def test_memory_released_after_a_run(pair):
    _, gpu = pair
    gc.collect()
    torch.cuda.empty_cache()
    before = torch.cuda.memory_allocated()
    dec = BeamSearchDecoder(gpu, BeamSettings(num_beams=8), 64).start(gpu.encode(PROMPTS[1], chat=True))
    dec.run()
    assert torch.cuda.memory_allocated() > before
    del dec
    gc.collect()
    torch.cuda.empty_cache()
    assert torch.cuda.memory_allocated() <= before + (1 << 20)


@pytest.mark.parametrize("backend", ["static", "compiled"])
def test_static_and_compiled_backends_match_eager_on_cuda(pair, backend):
    """The static KV cache, and torch.compile with CUDA graphs (mode reduce-overhead), for the decode
    pass and the speculative verify pass: the same greedy tokens as the eager path."""
    from decoding_core.speculative import SpeculativeDecoder

    _, gpu = pair
    ids = gpu.encode(PROMPTS[0], chat=True)
    eager = greedy_decoder(gpu, N).start(ids).run()
    for _ in range(2):  # the second run replays the captured graphs
        fast = greedy_decoder(gpu, N, backend=backend).start(ids).run()
        assert fast.tokens == eager.tokens
        assert fast.metrics["backend"] == backend, fast.metrics.get("compile_fallback")
    spec = SpeculativeDecoder(gpu, None, 4, "greedy", max_new_tokens=N, backend=backend).start(ids).run()
    assert spec.tokens == eager.tokens
