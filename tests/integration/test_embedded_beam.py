"""Beam search on the embedded model equals transformers' beam search: sequences and scores."""
import json

import pytest
import torch
from transformers import GenerationConfig

from decoding_core.beam import BeamSearchDecoder, BeamSettings
from tests.conftest import PROMPTS
from tests.integration.test_embedded_greedy import run_cli

N = 12


def hf_beam(lm, ids, k, lp, es, n=N):
    gc = GenerationConfig(do_sample=False, num_beams=k, num_return_sequences=k, max_new_tokens=n, length_penalty=lp,
                          early_stopping=es, eos_token_id=list(lm.eos_ids), pad_token_id=2, output_scores=True,
                          return_dict_in_generate=True)
    out = lm.model.generate(torch.tensor([ids]), generation_config=gc)
    seqs = []
    for row in out.sequences[:, len(ids):].tolist():
        seqs.append(row[: row.index(2) + 1] if 2 in row else row)
    return seqs, (out.sequences_scores.tolist() if k > 1 else None)


CASES = [(k, lp, es, 0) for k in (1, 2, 4, 8) for lp in (0.0, 1.0) for es in (False, True) if k in (2, 4) or lp == 1.0]
CASES += [(4, 1.0, False, 1), (4, 0.0, True, 2), (8, 1.0, True, 1)]


@pytest.mark.parametrize("k,lp,es,prompt", CASES)
def test_finished_set_equals_transformers(embedded, k, lp, es, prompt):
    ids = embedded.encode(PROMPTS[prompt], chat=True)
    dec = BeamSearchDecoder(embedded, BeamSettings(num_beams=k, length_penalty=lp, early_stopping=es), N).start(ids)
    dec.run()
    seqs, scores = hf_beam(embedded, ids, k, lp, es)
    hyps = dec.hypotheses()
    assert [list(h.tokens) for h in hyps] == seqs
    if scores:
        assert [h.score for h in hyps] == pytest.approx(scores, abs=1e-4)


def test_freitag_settings_prune_and_record_on_embedded(embedded):
    ids = embedded.encode(PROMPTS[2], chat=True)
    s = BeamSettings(num_beams=4, rp=0.6, ap=2.5, rpl=0.02, mc=3)
    dec = BeamSearchDecoder(embedded, s, N).start(ids)
    dec.run()
    plain = BeamSearchDecoder(embedded, BeamSettings(num_beams=4), N).start(ids)
    plain.run()
    assert dec.metrics()["hypotheses_expanded"] < plain.metrics()["hypotheses_expanded"]
    pruned = [c for st in dec.history for c in st.candidates if c.status == "pruned"]
    assert pruned and all(c.rules for c in pruned)


def test_cli_beam_hypotheses(embedded):
    proc = run_cli("--strategy", "beam", "--chat", PROMPTS[0], "--num-beams", "3", "--max-new-tokens", str(N),
                   "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    seqs, scores = hf_beam(embedded, embedded.encode(PROMPTS[0], chat=True), 3, 1.0, False)
    assert [h["tokens"] for h in out["hypotheses"]] == seqs
    assert out["tokens"] == seqs[0]
    assert out["metrics"]["hypotheses_expanded"] > out["metrics"]["target_forwards"]
    bad = run_cli("--strategy", "beam", "--prompt", "x", "--rp", "1.5")
    assert bad.returncode == 2 and "rp" in bad.stderr


def test_stochastic_beam_search_from_the_command_line(capsys):
    """`--strategy stochastic-beam --num-beams K` on the embedded model: K distinct sequences, reproducible."""
    import json

    from decoding_core.cli import main

    args = ["run", "--strategy", "stochastic-beam", "--num-beams", "3", "--chat", "Name a colour.",
            "--max-new-tokens", "6", "--seed", "4"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    again = json.loads(capsys.readouterr().out)
    seqs = [tuple(h["tokens"]) for h in out["hypotheses"]]
    assert len(seqs) == 3 and len(set(seqs)) == 3 and out["tokens"] == list(seqs[0]) == again["tokens"]
    keys = [h["key"] for h in out["hypotheses"]]  # listed in sampling order: by Gumbel key, not by score
    assert keys == sorted(keys, reverse=True) and out["hypotheses_order"].startswith("Gumbel key")
