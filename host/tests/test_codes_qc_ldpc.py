"""The (9216, 8192) QC-LDPC code: structure, rank, girth and the systematic encoder.

References independent of `nandlab.codes`: H is re-expanded here from the base
matrix with numpy's roll of the identity, ranked with the `ldpc` package's
GF(2) routines, and its girth found by breadth-first search on the Tanner graph.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from ldpc.mod2 import rank

from nandlab.codes import base_matrix, pif_code
from nandlab.errors import RangeError

Z = 128


def _dense_h() -> np.ndarray:
    shifts = base_matrix()
    blocks = [
        [
            np.zeros((Z, Z), np.uint8) if s < 0 else np.roll(np.eye(Z, dtype=np.uint8), s, axis=1)
            for s in row
        ]
        for row in shifts
    ]
    return np.block(blocks)


def _sparse_h() -> sp.csr_matrix:
    code = pif_code()
    rows, cols = code.edges()
    return sp.csr_matrix((np.ones(rows.size, np.uint8), (rows, cols)), shape=(code.m, code.n))


def test_dimensions_weights_and_circulant_convention() -> None:
    code = pif_code()
    assert (code.n, code.k, code.m, code.z) == (9216, 8192, 1024, Z)
    assert base_matrix().shape == (8, 72)
    h = _sparse_h()
    assert (h.toarray() == _dense_h()).all()
    assert set(np.asarray(h.sum(axis=0)).ravel()) == {5}
    assert set(np.asarray(h.sum(axis=1)).ravel()) == {45}
    assert abs(code.k / code.n - 0.889) < 1e-3


def test_full_rank_so_the_code_has_8192_message_bits() -> None:
    h = _sparse_h()
    assert rank(h) == 1024
    assert rank(h[:, 8192:]) == 1024


def _shortest_cycle_through(adj: sp.csr_matrix, source: int, limit: int) -> int:
    """Length of the shortest cycle through `source` (BFS), or a number > limit."""
    n = adj.shape[0]
    dist = np.full(n, -1)
    parent = np.full(n, -1)
    dist[source] = 0
    frontier = np.array([source])
    best = limit + 1
    for depth in range(limit // 2 + 1):
        if frontier.size == 0:
            return best
        counts = np.diff(adj.indptr)[frontier]
        u = np.repeat(frontier, counts)
        v = np.concatenate([adj.indices[adj.indptr[f] : adj.indptr[f + 1]] for f in frontier])
        keep = v != parent[u]
        u, v = u[keep], v[keep]
        seen = dist[v] >= 0
        if seen.any():
            best = min(best, int((dist[u[seen]] + dist[v[seen]] + 1).min()))
        new_v, first, times = np.unique(v[~seen], return_index=True, return_counts=True)
        if (times > 1).any():
            best = min(best, 2 * (depth + 1))
        if best <= 2 * (depth + 1):
            return best
        dist[new_v] = depth + 1
        parent[new_v] = u[~seen][first]
        frontier = new_v
    return best


def _tanner(h: sp.csr_matrix) -> sp.csr_matrix:
    return sp.bmat([[None, h.T], [h, None]]).tocsr()


@pytest.mark.parametrize(
    ("rows", "girth"),
    [([[1, 1], [1, 1]], 4), ([[1, 1, 0], [0, 1, 1], [1, 0, 1]], 6), ([[1, 1, 0], [0, 1, 1]], 99)],
)
def test_the_cycle_search_finds_known_girths(rows: list[list[int]], girth: int) -> None:
    tanner = _tanner(sp.csr_matrix(np.array(rows, np.uint8)))
    found = min(_shortest_cycle_through(tanner, s, 8) for s in range(tanner.shape[0]))
    assert found == girth if girth <= 8 else found > 8


def test_girth_is_six() -> None:
    code = pif_code()
    h = _sparse_h()
    tanner = _tanner(h)
    # Shifting every index inside its block by one maps H onto itself, so the first
    # bit of each block column stands for all; every cycle passes through a bit.
    girth = min(_shortest_cycle_through(tanner, c * Z, 8) for c in range(code.n // Z))
    assert girth == 6


def test_encoder_is_systematic_and_satisfies_every_check() -> None:
    code = pif_code()
    h = _sparse_h()
    rng = np.random.default_rng(14)
    messages = rng.integers(0, 2, (8, code.k), dtype=np.uint8)
    words = code.encode(messages)
    assert (words[:, : code.k] == messages).all()
    assert not ((h @ words.T.astype(np.int64)) % 2).any()
    assert words[:, code.k :].any()
    assert not code.encode(np.zeros(code.k, np.uint8)).any()
    assert (code.syndrome(words) == 0).all()
    flipped = words[0].copy()
    flipped[100] ^= 1
    assert (code.syndrome(flipped)[0] == (h[:, 100].toarray().ravel() % 2)).all()


@pytest.mark.parametrize(
    "bad",
    [np.zeros(8191, np.uint8), np.zeros((2, 8193), np.uint8), np.full(8192, 2)],
    ids=["short", "long", "not-bits"],
)
def test_encoder_rejects_a_bad_message(bad: np.ndarray) -> None:
    with pytest.raises(RangeError):
        pif_code().encode(bad)
