"""Tree masks, position ids and retrieve indices: exact tensors."""
import pytest
import torch

from decoding_core.trees import (REFERENCE_STATIC_TREE, depths, position_ids, retrieve_indices, static_tree_parents,
                                 tree_attention_mask, tree_verify_mask)

#        0
#      /   \
#     1     2
#    / \     \
#   3   4     5
PARENTS = [-1, 0, 0, 1, 1, 2]


def test_hand_built_tree_exact():
    assert depths(PARENTS) == [0, 1, 1, 2, 2, 2]
    assert tree_attention_mask(PARENTS).int().tolist() == [
        [1, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0],
        [1, 0, 1, 0, 0, 0],
        [1, 1, 0, 1, 0, 0],
        [1, 1, 0, 0, 1, 0],
        [1, 0, 1, 0, 0, 1],
    ]
    assert position_ids(PARENTS, 7).tolist() == [7, 8, 8, 9, 9, 9]
    assert retrieve_indices(PARENTS).tolist() == [[0, 1, 3], [0, 1, 4], [0, 2, 5]]


def test_chain_is_causal():
    chain = [-1, 0, 1, 2]
    assert torch.equal(tree_attention_mask(chain), torch.ones(4, 4, dtype=torch.bool).tril())
    assert retrieve_indices(chain).tolist() == [[0, 1, 2, 3]]


def test_uneven_leaves_are_padded():
    assert retrieve_indices([-1, 0, 0, 2]).tolist() == [[0, 1, -1], [0, 2, 3]]


def test_reference_static_tree():
    parents, keys = static_tree_parents(REFERENCE_STATIC_TREE)
    assert len(parents) == 26 and max(depths(parents)) == 5
    ri = retrieve_indices(parents)
    assert ri.shape == (15, 6)  # 15 leaves, root + depth 5
    assert keys[:5] == [(), (0,), (1,), (2,), (3,)]
    assert parents[:13] == [-1, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4]
    mask = tree_attention_mask(parents)
    assert mask.sum(1).tolist() == [d + 1 for d in depths(parents)]  # a node sees itself and its ancestors
    node = keys.index((0, 0, 0, 0, 1))
    assert mask[node].nonzero().flatten().tolist() == [0, 1, 5, 13, 21, node]


def test_verify_mask_sees_the_prefix():
    m = tree_verify_mask(PARENTS, 3, torch.float32)
    assert m.shape == (1, 1, 6, 9)
    assert (m[0, 0, :, :3] == 0).all()
    allowed = m[0, 0, :, 3:] == 0
    assert torch.equal(allowed, tree_attention_mask(PARENTS))


@pytest.mark.parametrize("bad", [[0, 0], [-1, 1], [-1, 0, 3, 0], []])
def test_invalid_trees(bad):
    with pytest.raises(ValueError):
        depths(bad)


def test_static_tree_needs_parent_paths():
    with pytest.raises(ValueError, match="parent path"):
        static_tree_parents([[0], [1, 2]])


def test_merge_path_follows_matching_children_and_adds_the_rest():
    """A copied chain merged into a tree: it follows the child that already holds its next token and adds nodes
    from the first token no child holds (siblings stay distinct); the caller's add records whatever it keeps."""
    from decoding_core.trees import merge_path

    tokens, parents, kinds = [9, 4, 5, 6], [-1, 0, 1, 0], ["root", "a", "b", "c"]

    def add(parent, tok):
        tokens.append(tok), parents.append(parent), kinds.append("copied")
        return len(tokens) - 1

    merge_path(tokens, parents, [4, 5, 7, 8], add)       # 4 -> 5 exist; 7 under 5 and 8 under 7 are new
    assert tokens == [9, 4, 5, 6, 7, 8] and parents == [-1, 0, 1, 0, 2, 4] and kinds[4:] == ["copied", "copied"]
    merge_path(tokens, parents, [6, 4], add)             # 6 exists at the root; 4 under it is new (not node 1)
    assert tokens[-1] == 4 and parents[-1] == 3
    merge_path(tokens, parents, [], add)                 # nothing copied: nothing added
    assert len(tokens) == 7
