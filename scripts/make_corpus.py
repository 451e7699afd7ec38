"""Self-distillation corpus: a generated, varied instruction set and the embedded target's own answers.

Both the speculative draft model (scripts/train_draft.py) and the EAGLE head (scripts/train_eagle.py)
train on this. Instructions come from templates x topics; whole TOPICS are held out (never trained
on) so held-out figures measure generalisation, not memorised phrasing. Answers are the target's
greedy continuations under its chat template, generated in batches (bfloat16 is fine for data).

    python scripts/make_corpus.py --out data/corpus.jsonl --n 1400 --max-new-tokens 160
Writes one JSON object per line: {"split", "instruction", "prompt_ids", "answer_ids"} and prints a
summary (counts, tokens, tokens/s) on stderr.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from decoding_core.models import load_model  # noqa: E402

TOPICS = [
    "the water cycle", "photosynthesis", "black holes", "the French Revolution", "machine learning",
    "volcanoes", "the human heart", "climate change", "the stock market", "honey bees", "the Roman Empire",
    "electric cars", "sleep", "coffee", "the moon landing", "vaccines", "recycling", "the internet",
    "chess", "the Great Wall of China", "rainbows", "earthquakes", "the immune system", "jazz music",
    "the printing press", "solar panels", "dinosaurs", "the Amazon rainforest", "gravity", "bread baking",
    "the Olympic Games", "democracy", "octopuses", "time zones", "the piano", "plate tectonics",
    "friendship", "public speaking", "budgeting", "gardening", "meditation", "learning a language",
    "the Renaissance", "antibiotics", "whales", "batteries", "the speed of light", "tea", "bicycles",
    "the Moon", "Mars", "cloud computing", "password security", "recipes with rice", "running a marathon",
    "writing a resume", "job interviews", "the ocean tides", "glaciers", "deserts", "the Silk Road",
    "ancient Egypt", "the Industrial Revolution", "robots", "3D printing", "bird migration", "snow",
    "lightning", "the periodic table", "DNA", "evolution", "the Python programming language", "sorting algorithms",
    "prime numbers", "fractions", "the Pythagorean theorem", "probability", "statistics", "maps",
    "airplanes", "trains", "the human brain", "memory", "habits", "cats", "dogs", "forests", "rivers",
    "the Sun", "comets", "penguins", "elephants", "chocolate", "pizza", "soccer", "basketball",
]
TEMPLATES = [
    "Explain {t} in simple terms.", "What is {t}?", "Give me three interesting facts about {t}.",
    "Write a short poem about {t}.", "Why is {t} important?", "Summarize the history of {t} in a few sentences.",
    "Explain {t} to a ten-year-old.", "What are the pros and cons of {t}?", "Write a haiku about {t}.",
    "List five key words related to {t} and explain each.", "How does {t} work?",
    "Write a short story that involves {t}.", "What are common misconceptions about {t}?",
    "Describe {t} in one paragraph.", "What questions would a student ask about {t}? Answer one of them.",
    "Compare {t} with something from everyday life.", "Write a tweet about {t}.",
    "Give me a quiz question about {t} with the answer.", "What would happen if {t} did not exist?",
    "Write a friendly email to a colleague about {t}.", "Teach me something new about {t}.",
    "What are the main parts of {t}?", "Give a step-by-step explanation of {t}.",
    "Write a limerick about {t}.", "What is the future of {t}?",
]


def build_instructions(n: int, held_out_frac: float, seed: int) -> list[tuple[str, str]]:
    """(split, instruction) pairs: whole topics go to the held-out split."""
    rng = random.Random(seed)
    topics = TOPICS[:]
    rng.shuffle(topics)
    n_held = max(1, round(len(topics) * held_out_frac))
    held = set(topics[:n_held])
    pairs = [(t, tpl) for t in topics for tpl in TEMPLATES]
    rng.shuffle(pairs)
    out = [("heldout" if t in held else "train", tpl.format(t=t)) for t, tpl in pairs]
    train_rows = [r for r in out if r[0] == "train"]
    held_rows = [r for r in out if r[0] == "heldout"]
    n_held_rows = max(1, round(n * held_out_frac))
    return train_rows[: n - n_held_rows] + held_rows[:n_held_rows]


@torch.inference_mode()
def generate_answers(lm, prompts: list[list[int]], max_new_tokens: int, batch: int, progress=None) -> list[list[int]]:
    """Greedy answers for prompts (left-padded batches), in the prompts' order."""
    pad = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else lm.eos_ids[0]
    eos = set(lm.eos_ids)
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))  # similar lengths batch well
    answers: dict[int, list[int]] = {}
    for s in range(0, len(order), batch):
        idx = order[s : s + batch]
        width = max(len(prompts[i]) for i in idx)
        ids = torch.full((len(idx), width), pad, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for r, i in enumerate(idx):
            ids[r, width - len(prompts[i]):] = torch.tensor(prompts[i])
            mask[r, width - len(prompts[i]):] = 1
        out = lm.model.generate(input_ids=ids.to(lm.device), attention_mask=mask.to(lm.device), do_sample=False,
                                max_new_tokens=max_new_tokens, pad_token_id=pad, eos_token_id=list(eos))
        for r, i in enumerate(idx):
            gen = out[r, width:].tolist()
            cut = next((k + 1 for k, t in enumerate(gen) if t in eos), len(gen))
            answers[i] = gen[:cut]
        if progress:
            progress(len(answers), sum(len(a) for a in answers.values()))
    return [answers[i] for i in range(len(prompts))]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="data/corpus.jsonl")
    ap.add_argument("--n", type=int, default=1400, help="instructions in all (train + held-out)")
    ap.add_argument("--held-out", type=float, default=0.1)
    ap.add_argument("--max-new-tokens", type=int, default=160)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    lm = load_model(device=args.device, dtype=args.dtype)
    rows = build_instructions(args.n, args.held_out, args.seed)
    prompts = [lm.encode(instr, chat=True) for _, instr in rows]

    def progress(done, toks):
        dt = time.perf_counter() - t0
        print(f"[corpus] {done}/{len(rows)} answers, {toks} tokens, {toks / dt:.0f} tok/s", file=sys.stderr, flush=True)

    answers = generate_answers(lm, prompts, args.max_new_tokens, args.batch, progress)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    with tmp.open("w") as f:
        for (split, instr), p, a in zip(rows, prompts, answers):
            f.write(json.dumps({"split": split, "instruction": instr, "prompt_ids": p, "answer_ids": a}) + "\n")
    tmp.rename(out)
    n_tok = sum(len(a) for a in answers)
    summary = {"instructions": len(rows), "train": sum(r[0] == "train" for r in rows),
               "heldout": sum(r[0] == "heldout" for r in rows), "answer_tokens": n_tok,
               "wall_s": round(time.perf_counter() - t0, 1), "dtype": args.dtype,
               "max_new_tokens": args.max_new_tokens, "seed": args.seed}
    out.with_suffix(".summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary), file=sys.stderr)


if __name__ == "__main__":
    main()
