"""The embedded model end to end: greedy equals transformers' generate, via the decoder and the CLI."""
import json
import subprocess
import sys

import pytest
import torch
from transformers import GenerationConfig

from decoding_core.decoders import greedy_decoder, sampling_decoder
from decoding_core.processors import SamplingSettings
from tests.conftest import PROMPTS, ROOT

N = 24


def hf_greedy(lm, ids, n=N):
    gc = GenerationConfig(do_sample=False, max_new_tokens=n, eos_token_id=list(lm.eos_ids), pad_token_id=2)
    out = lm.model.generate(torch.tensor([ids]), generation_config=gc)[0, len(ids):].tolist()
    return out


@pytest.mark.parametrize("prompt", PROMPTS)
def test_greedy_equals_generate(embedded, prompt):
    ids = embedded.encode(prompt, chat=True)
    result = greedy_decoder(embedded, max_new_tokens=N).start(ids).run()
    assert result.tokens == hf_greedy(embedded, ids)
    assert result.text == embedded.decode(result.tokens)
    assert result.metrics["new_tokens"] == len(result.tokens)


def test_static_backend_equals_generate_and_cpu_layout(embedded):
    """The static KV cache gives generate's greedy tokens; on CPU the loader lays Linear weights out for
    decoding in the layout measured fastest here (layout.choose_layout: packed oneDNN linears, column-major, or
    the blocked kernel)
    and the LM head stays tied."""
    ids = embedded.encode(PROMPTS[2], chat=True)
    result = greedy_decoder(embedded, max_new_tokens=N, backend="static").start(ids).run()
    assert result.tokens == hf_greedy(embedded, ids)
    assert result.metrics["backend"] == "static"
    head = embedded.model.get_output_embeddings().weight
    assert head is embedded.model.get_input_embeddings().weight
    if embedded.device.type == "cpu":
        from decoding_core.layout import layout_of, preferred_layout

        assert layout_of(embedded.model.get_output_embeddings()) == preferred_layout()


def test_cli_static_backend(embedded):
    proc = run_cli("--strategy", "speculative", "--draft", "prompt-lookup", "--chat", PROMPTS[1], "--max-new-tokens",
                   "12", "--backend", "static")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["metrics"]["backend"] == "static"
    assert out["tokens"] == hf_greedy(embedded, embedded.encode(PROMPTS[1], chat=True), 12)


def test_embedded_chat_template_and_eos(embedded):
    ids = embedded.encode("Hi", chat=True)
    assert embedded.decode(ids).rstrip().endswith("assistant")
    assert 2 in embedded.eos_ids
    with pytest.raises(ValueError, match="empty"):
        embedded.encode("   ")


def test_sampling_is_reproducible_on_embedded(embedded):
    ids = embedded.encode(PROMPTS[1], chat=True)
    s = SamplingSettings(temperature=0.9, top_p=0.95)
    a = sampling_decoder(embedded, s, "gumbel", 16, seed=42).start(ids).run().tokens
    b = sampling_decoder(embedded, s, "gumbel", 16, seed=42).start(ids).run().tokens
    assert a == b


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "decoding_core", "run", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_cli_greedy_json_equals_generate(embedded):
    proc = run_cli("--strategy", "greedy", "--chat", PROMPTS[0], "--max-new-tokens", str(N), "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) >= {"strategy", "settings", "prompt_tokens", "tokens", "text", "metrics"}
    ids = embedded.encode(PROMPTS[0], chat=True)
    assert out["prompt_tokens"] == ids
    assert out["tokens"] == hf_greedy(embedded, ids)
    assert out["metrics"]["target_forwards"] == len(out["tokens"])
    assert out["metrics"]["wall_s"] > 0
    # the settings as a run file writes them (only the strategy's own fields), the prompt itself beside its ids
    assert out["settings"]["strategy"] == {"type": "Greedy", "sampling": out["settings"]["strategy"]["sampling"]}
    assert out["settings"]["run"]["max_new_tokens"] == N and out["prompt"] == PROMPTS[0] and out["chat"] is True
    # the text as a reader wants it: no end-of-text marker; the EOS id stays in tokens when the text ended with it
    ended_with_eos = out["tokens"][-1] in embedded.eos_ids
    assert out["ended_by"] == ("eos" if ended_with_eos else "max_new_tokens") and "<|im_end|>" not in out["text"]
    assert out["text"] == embedded.decode(out["tokens"][:-1] if ended_with_eos else out["tokens"])


def test_cli_text_ends_before_the_end_marker(embedded):
    """A finished answer: stdout's text stops before <|im_end|>, which stays the last of the tokens."""
    proc = run_cli("--chat", "What is 2+2?", "--max-new-tokens", "40", "--device", "cpu")  # 11 words, then EOS
    out = json.loads(proc.stdout)
    assert out["ended_by"] == "eos" and out["tokens"][-1] in embedded.eos_ids, out
    assert out["text"] == embedded.decode(out["tokens"][:-1]) and not out["text"].endswith("<|im_end|>")


def test_cli_says_which_options_the_strategy_does_not_read(tmp_path):
    proc = run_cli("--strategy", "greedy", "--prompt", "Hi", "--max-new-tokens", "2", "--num-beams", "9",
                   "--n-draft", "4")
    assert proc.returncode == 0, proc.stderr
    assert "--num-beams, --n-draft not read by --strategy greedy" in proc.stderr
    assert "num_beams" not in json.dumps(json.loads(proc.stdout)["settings"])
    proc = run_cli("--strategy", "eagle", "--tree", "static", "--depth", "3", "--prompt", "Hi", "--max-new-tokens", "2")
    assert "--depth not read by --strategy eagle --tree static" in proc.stderr
    assert json.loads(proc.stdout)["metrics"]["sizes"]["depth"] == 5  # the static tree's own, not the option's
    quiet = run_cli("--strategy", "beam", "--num-beams", "2", "--prompt", "Hi", "--max-new-tokens", "2")
    assert quiet.returncode == 0 and "not read" not in quiet.stderr
    missing = run_cli("--prompt", "Hi", "--out", str(tmp_path / "no" / "such" / "run.json"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr and missing.stdout == ""


@pytest.mark.parametrize("args,needle", [
    (["--prompt", ""], "empty"),
    (["--prompt", "x", "--temperature", "0"], "temperature"),
    (["--prompt", "x", "--top-p", "1.5"], "top-p"),
    (["--prompt", "x", "--max-new-tokens", "0"], "max-new-tokens"),
    (["--prompt", "x", "--strategy", "nope"], "strategy"),
    (["--prompt", "x", "--model", "/no/such/folder"], "not"),
    (["--prompt", "x", "--device", "cuda"], "CUDA"),
    (["--prompt", "x", "--strategy", "beam", "--backend", "compiled"], "backend"),
    (["--prompt", "x", "--backend", "turbo"], "backend"),
    (["--prompt", "x", "--strategy", "speculative", "--n-draft", "1000"], "n-draft"),
])
def test_cli_bad_options_exit_2_with_one_line(args, needle):
    if needle == "CUDA" and torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    proc = run_cli(*args)
    assert proc.returncode == 2
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and needle.lower() in lines[0].lower(), proc.stderr
    assert proc.stdout == ""
