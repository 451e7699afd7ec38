"""Token trees for tree verification (EAGLE, Medusa, SpecInfer): pure functions on CPU tensors.

A tree is a list of parent indices: ``parents[0] == -1`` is the root (the last token the target
produced), and ``parents[i] < i`` for every other node. Depth(root) = 0.
"""
from __future__ import annotations

import torch

# The EAGLE-1 reference static tree ("mc_sim_7b_63" choices cut to 25 nodes): each path is a
# sequence of ranks among the draft's top choices, e.g. [0, 1] = the 2nd choice after the 1st.
REFERENCE_STATIC_TREE = [
    [0], [1], [2], [3], [0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0], [2, 1], [3, 0], [0, 0, 0], [0, 0, 1],
    [0, 0, 2], [0, 1, 0], [0, 1, 1], [0, 2, 0], [0, 2, 1], [1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 2],
    [0, 0, 0, 0, 0], [0, 0, 0, 0, 1],
]


def validate_parents(parents: list[int]) -> None:
    if not parents or parents[0] != -1:
        raise ValueError("a tree's node 0 must be the root (parent -1)")
    for i, p in enumerate(parents[1:], start=1):
        if not 0 <= p < i:
            raise ValueError(f"node {i} has parent {p}: parents must come before their children")


def depths(parents: list[int]) -> list[int]:
    """Distance of each node to the root."""
    validate_parents(parents)
    d = [0] * len(parents)
    for i in range(1, len(parents)):
        d[i] = d[parents[i]] + 1
    return d


def children_of(parents: list[int]) -> dict[int, list[int]]:
    """{node: its children in index order}."""
    children: dict[int, list[int]] = {}
    for i, par in enumerate(parents[1:], start=1):
        children.setdefault(par, []).append(i)
    return children


def merge_path(tokens: list[int], parents: list[int], path: list[int], add) -> None:
    """Merge a chain of tokens into a tree as one more path from the root, siblings kept distinct: where a node
    already has a child holding the next token the path follows it, otherwise ``add(parent, token)`` appends a node
    (to ``tokens`` and ``parents``, with whatever else the caller records per node) and returns its index."""
    children = children_of(parents)
    node = 0
    for tok in path:
        nxt = next((c for c in children.get(node, []) if tokens[c] == tok), None)
        if nxt is None:
            nxt = add(node, tok)
            children.setdefault(node, []).append(nxt)
        node = nxt


def ancestors(parents: list[int], i: int) -> list[int]:
    """i and its ancestors up to the root, root first."""
    path = []
    while i != -1:
        path.append(i)
        i = parents[i]
    return path[::-1]


def tree_attention_mask(parents: list[int]) -> torch.Tensor:
    """M [T, T] bool: M[i, j] = 1 iff j is i or an ancestor of i (the prefix, always visible, is not
    included here)."""
    validate_parents(parents)
    n = len(parents)
    mask = torch.zeros(n, n, dtype=torch.bool)
    for i in range(n):
        mask[i, ancestors(parents, i)] = True
    return mask


def position_ids(parents: list[int], prefix_len: int) -> torch.Tensor:
    """[T] positions: prefix_len + depth. The root sits at prefix_len (it is the next input token)."""
    return torch.tensor([prefix_len + d for d in depths(parents)], dtype=torch.long)


def retrieve_indices(parents: list[int]) -> torch.Tensor:
    """[leaves, max_depth + 1]: each root-to-leaf path as node indices, padded with -1."""
    validate_parents(parents)
    has_child = set(parents[1:])
    leaves = [i for i in range(len(parents)) if i not in has_child]
    paths = [ancestors(parents, leaf) for leaf in leaves]
    width = max(len(p) for p in paths)
    return torch.tensor([p + [-1] * (width - len(p)) for p in paths], dtype=torch.long)


def static_tree_parents(paths: list[list[int]]) -> tuple[list[int], list[tuple[int, ...]]]:
    """Parent list of a static tree given as rank paths (a path's prefixes must all be listed).
    Returns (parents with the root first, each node's rank path)."""
    ordered = sorted(paths, key=lambda p: (len(p), p))
    index = {(): 0}
    parents, keys = [-1], [()]
    for p in ordered:
        key = tuple(p)
        if key[:-1] not in index:
            raise ValueError(f"static tree path {p} has no parent path {list(key[:-1])}")
        index[key] = len(parents)
        parents.append(index[key[:-1]])
        keys.append(key)
    return parents, keys


def additive_mask(allowed: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """bool [.., Q, K] (True = may attend) -> additive float mask (0 or the dtype's lowest value)."""
    out = torch.zeros(allowed.shape, dtype=dtype, device=allowed.device)
    return out.masked_fill(~allowed, torch.finfo(dtype).min)


def tree_verify_mask(parents: list[int], prefix_len: int, dtype: torch.dtype, device=None,
                     pending: int = 0) -> torch.Tensor:
    """The 4D additive mask [1, 1, pending + T, prefix_len + pending + T] for one target forward over ``pending``
    plain tokens (causal; 0 when the cache already holds the prefix) followed by a flattened tree: every tree node
    sees the whole prefix and the pending tokens, itself and its ancestors."""
    tree = tree_attention_mask(parents)
    before = prefix_len + pending
    rows = torch.cat([torch.ones(len(parents), before, dtype=torch.bool), tree], dim=1)
    if pending:
        causal = torch.ones(pending, pending, dtype=torch.bool).tril()
        top = torch.cat([torch.ones(pending, prefix_len, dtype=torch.bool), causal,
                         torch.zeros(pending, len(parents), dtype=torch.bool)], dim=1)
        rows = torch.cat([top, rows])
    return additive_mask(rows, dtype)[None, None].to(device)


def keep_path(cache, prefix: int, path: list[int]) -> None:
    """After a verify forward over a flattened tree (node i's KV entry at position prefix + i of ``cache``, a
    DynamicCache), keep only the entries of ``path`` (node indices, root first), contiguous after the prefix."""
    from .fastpath import crop_to

    first = next((i for i, node in enumerate(path) if node != i), len(path))  # entries before it are in place
    if first < len(path):  # move the kept entries down (gathered first: no overlap)
        sel = torch.tensor(path[first:], device=cache.layers[0].keys.device)
        src, end = prefix + sel, prefix + len(path)
        with torch.inference_mode():                   # the cache's tensors were made in inference mode
            for layer in cache.layers:
                layer.keys[..., prefix + first:end, :] = layer.keys[..., src, :]
                layer.values[..., prefix + first:end, :] = layer.values[..., src, :]
    crop_to(cache, prefix + len(path))                 # a view: nothing before the prefix is copied
