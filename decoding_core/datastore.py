"""A corpus datastore: branches drafted from the target's own earlier answers (retrieval drafting, as REST, He et al.
2023), for the EAGLE tree's lookup branch where prompt lookup finds nothing.

The self-distillation corpus (assets/corpus) holds ~3 M tokens of the embedded target's greedy answers. Its new-topic
words do not help on new topics, but its phrasing habits do ("Here are some", "I hope this helps"): after the
context's last 1-4 tokens, the token that most often followed them in those answers is a guess the head misses at
times. The index is exact: for each order k = 4..1, every k-gram seen at least ``min_count`` times in the answers
(four 16-bit ids packed into one uint64 key, sorted) with the token that followed it most often (ties: the smallest
id). A branch chains those guesses from the longest suffix found. It is a deterministic function of the context, so
greedy verification keeps the output and lossless sampling treats its tokens as the lookup branch's (q a point mass).

Held-out effect: docs/eval-s39.log (``scripts/eval_tau.py --corpus-branch``, ``scripts/datastore_probe.py``).
"""
from __future__ import annotations

import gzip
import json
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

from .draft import ASSETS
from .messages import Msg
from .models import ModelLoadError

CORPUS_DIR = ASSETS / "corpus"
ORDERS = (4, 3, 2, 1)
MIN_COUNT = 2  # a suffix must have been seen this often (2 beat 5 and 20: docs/eval-s39.log)
_SEP = 1 << 16  # ends each answer in the index; no 16-bit id


def same_rule(entry: dict) -> bool:
    """Whether a figure or table (a manifest entry) was measured with the datastore's rule of now: suffixes seen
    ``MIN_COUNT`` times or more, no share gate."""
    return entry.get("min_count") == MIN_COUNT and not entry.get("min_share", 0.0)


class Datastore:
    """Exact n-gram table over token sequences (ids < 65,536): ``branch`` drafts from it."""

    def __init__(self, seqs, min_count: int = MIN_COUNT, min_share: float = 0.0):
        t0 = time.perf_counter()
        parts = [np.asarray(list(s) + [_SEP], dtype=np.int64) for s in seqs if len(s)]
        arr = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        if arr.size and int(arr[arr != _SEP].max(initial=0)) >= _SEP:
            raise ValueError("the datastore packs token ids into 16 bits; this vocabulary has larger ids")
        self.tokens, self.min_count, self.min_share, self.tables = int((arr != _SEP).sum()), min_count, min_share, {}
        ids = arr.astype(np.uint64)  # unsigned: a 4-gram whose first id is >= 32,768 fills the key's top bit
        for k in ORDERS:
            n = max(len(arr) - k, 0)  # k-grams arr[p:p+k] followed by arr[p+k]
            key, ok = np.zeros(n, dtype=np.uint64), arr[k: k + n] != _SEP
            for j in range(k):
                key = (key << np.uint64(16)) | ids[j: j + n]
                ok &= arr[j: j + n] != _SEP
            self.tables[k] = _mode_table(key[ok], arr[k: k + n][ok], min_count, min_share)
        self.build_s = time.perf_counter() - t0

    @property
    def entries(self) -> int:
        return sum(len(keys) for keys, _ in self.tables.values())

    def next_token(self, context: list[int]) -> int | None:
        """The token that most often followed the longest suffix of ``context`` (4 tokens down to 1) in the table."""
        for k in ORDERS:
            if len(context) < k or any(t >= _SEP or t < 0 for t in context[-k:]):
                continue
            q = 0
            for t in context[-k:]:
                q = (q << 16) | int(t)
            keys, mode = self.tables[k]
            q = np.uint64(q)
            i = int(np.searchsorted(keys, q))
            if i < len(keys) and keys[i] == q:
                return int(mode[i])
        return None

    def branch(self, context: list[int], n: int, never: frozenset[int] = frozenset()) -> list[int]:
        """Up to n tokens: each the table's guess after the context and the guesses before it; stops at a token in
        ``never`` (special tokens, as the lookup branch) or where no suffix is in the table."""
        out: list[int] = []
        ctx = list(context[-max(ORDERS):])
        while len(out) < n:
            t = self.next_token(ctx)
            if t is None or t in never:
                break
            out.append(t)
            ctx = ctx[1:] + [t] if len(ctx) >= max(ORDERS) else ctx + [t]
        return out


def _mode_table(key: np.ndarray, nxt: np.ndarray, min_count: int, min_share: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(sorted unique keys seen >= min_count times whose most frequent next token followed them at least ``min_share``
    of the time, that token; ties: the smallest id)."""
    if not key.size:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int32)
    order = np.lexsort((nxt, key))
    key, nxt = key[order], nxt[order]
    new_pair = np.r_[True, (key[1:] != key[:-1]) | (nxt[1:] != nxt[:-1])]
    starts = np.flatnonzero(new_pair)
    pair_key, pair_nxt = key[starts], nxt[starts]
    pair_n = np.diff(np.r_[starts, len(key)])
    group = np.flatnonzero(np.r_[True, pair_key[1:] != pair_key[:-1]])  # first pair of each key
    total = np.add.reduceat(pair_n, group)
    best = np.maximum.reduceat(pair_n, group)
    # the first pair of each group whose count is the group's best (pairs are sorted by id: the smallest id wins)
    gid = np.repeat(np.arange(len(group)), np.diff(np.r_[group, len(pair_key)]))
    cand = np.flatnonzero(pair_n == best[gid])  # every group has one; take each group's first
    first_best = cand[np.r_[True, gid[cand][1:] != gid[cand][:-1]]]
    keep = (total >= min_count) & (best >= min_share * total)
    return pair_key[group][keep], pair_nxt[first_best][keep].astype(np.int32)


def corpus_answers(folder: Path) -> tuple[list[list[int]], dict]:
    """The training answers' token ids of a corpus folder (scripts/make_corpus.py shards) and its manifest."""
    manifest = json.loads((folder / "manifest.json").read_text())
    answers = []
    for shard in sorted(folder.glob("train-*.jsonl.gz")):
        with gzip.open(shard, "rt") as f:
            answers += [row["answer_ids"] for row in map(json.loads, filter(str.strip, f)) if row.get("answer_ids")]
    return answers, manifest


def _read_error(path: Path, exc: Exception) -> ModelLoadError:
    return ModelLoadError(Msg.of("core.err.corpus_read", path=str(path), error=f"{type(exc).__name__}: {exc}"))


@lru_cache(maxsize=4)
def _probe(folder: str) -> tuple[str, str, list[int]]:
    """(the model the corpus was made with, its first training instruction, that instruction's stored ids)."""
    path = Path(folder)
    try:
        made_by = str(json.loads((path / "manifest.json").read_text()).get("target", ""))
        with gzip.open(sorted(path.glob("train-*.jsonl.gz"))[0], "rt") as f:
            row = json.loads(f.readline())
        return made_by, str(row["instruction"]), list(row["prompt_ids"])
    except (OSError, EOFError, ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise _read_error(path, exc) from exc


@lru_cache(maxsize=2)
def _build(folder: str) -> Datastore:
    path = Path(folder)
    try:
        answers, _ = corpus_answers(path)
        return Datastore(answers)
    except (OSError, EOFError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise _read_error(path, exc) from exc


def load_datastore(target, folder: Path | str = CORPUS_DIR) -> Datastore:
    """The datastore of the corpus in ``folder`` for ``target`` (built once per process, ~4 s): its token ids must
    mean the same to the target's tokenizer (the corpus's first instruction must encode to the ids stored with it,
    checked before the build), else a ModelLoadError says so; so must a corpus that cannot be read."""
    key = str(Path(folder).resolve())
    made_by, instruction, prompt_ids = _probe(key)
    try:
        same = target.encode(instruction, chat=True) == prompt_ids
    except Exception:  # noqa: BLE001 - any tokenizer failure means the ids cannot be trusted
        same = False
    if not same:
        raise ModelLoadError(Msg.of("core.err.corpus_tokenizer", made_by=made_by or "?", target=target.name))
    return _build(key)
