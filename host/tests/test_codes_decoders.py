"""Decoders of the QC-LDPC code: the in-chip bit-flipping and the controller's min-sum.

The min-sum decoder is checked against the `ldpc` package's BpDecoder
(minimum_sum, parallel schedule, the same scaling factor and iteration cap) on
the same parity-check matrix: the same decoded word, or both fail, frame by frame.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from ldpc import BpDecoder

from nandlab.codes import bitflip_decode, min_sum_decode, pif_code, soft_read_llrs
from nandlab.errors import RangeError


def _frames(errors: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    code = pif_code()
    rng = np.random.default_rng(seed)
    words = code.encode(rng.integers(0, 2, (count, code.k), dtype=np.uint8))
    received = words.copy()
    positions = []
    for f in range(count):
        pos = rng.choice(code.n, errors, replace=False)
        received[f, pos] ^= 1
        positions.append(pos)
    return words, received, positions


def test_bitflip_corrects_random_patterns_well_inside_its_reach() -> None:
    words, received, _ = _frames(errors=25, count=20, seed=1)
    out, ok, iters = bitflip_decode(pif_code(), received)
    assert ok.all()
    assert (out == words).all()
    assert (iters >= 1).all()


def test_bitflip_single_error_flips_in_the_first_pass_and_clean_word_takes_none() -> None:
    code = pif_code()
    words, received, _ = _frames(errors=1, count=2, seed=2)
    out, ok, iters = bitflip_decode(code, np.vstack([received[0], words[1]]))
    assert ok.all()
    assert (out == words).all()
    assert iters.tolist() == [1, 0]


def test_bitflip_reports_failure_beyond_its_reach_and_never_a_false_success() -> None:
    code = pif_code()
    words, received, _ = _frames(errors=200, count=4, seed=3)
    out, ok, _ = bitflip_decode(code, received, max_iterations=20)
    assert not ok.any()
    assert (code.syndrome(out).any(axis=1) == ~ok).all()


def _ldpc_decisions(received: np.ndarray, magnitudes: np.ndarray) -> tuple[np.ndarray, bool]:
    code = pif_code()
    rows, cols = code.edges()
    h = sp.csr_matrix((np.ones(rows.size, np.uint8), (rows, cols)), shape=(code.m, code.n))
    p = 1.0 / (1.0 + np.exp(magnitudes))
    bpd = BpDecoder(
        h,
        channel_probs=p,
        max_iter=30,
        bp_method="minimum_sum",
        ms_scaling_factor=0.75,
        schedule="parallel",
        input_vector_type="syndrome",
    )
    error = bpd.decode((h @ received.astype(np.int64) % 2).astype(np.uint8))
    return received ^ error, bool(bpd.converge)


@pytest.mark.parametrize(
    ("errors", "soft", "seed"), [(80, False, 4), (60, False, 5), (110, True, 6)]
)
def test_min_sum_makes_the_same_decisions_as_the_ldpc_package(
    errors: int, soft: bool, seed: int
) -> None:
    code = pif_code()
    words, received, positions = _frames(errors, count=6, seed=seed)
    rng = np.random.default_rng(seed)
    outcomes = set()
    for f in range(len(words)):
        weak = rng.random(code.n) < 0.05
        if soft:
            weak[positions[f]] = rng.random(errors) < 0.85
        else:
            weak[:] = False
        # ldpc takes error probabilities; feed ours the LLRs it derives from them.
        p = 1.0 / (1.0 + np.exp(np.where(weak, 1.3, 4.0)))
        magnitudes = np.log((1 - p) / p)
        theirs, converged = _ldpc_decisions(received[f], magnitudes)
        ours, ok, _ = min_sum_decode(
            code, np.where(received[f] == 1, -magnitudes, magnitudes), 30, 0.75
        )
        assert (ours[0] == theirs).all()
        assert ok[0] == converged
        outcomes.add((bool(ok[0]), bool((ours[0] == words[f]).all())))
    # The hard 80-error set is past the knee: some frames fail there, none elsewhere.
    assert outcomes == ({(False, False), (True, True)} if errors == 80 else {(True, True)})


def test_bitflip_decisions_agree_with_the_ldpc_package() -> None:
    """Near the bit-flipping decoder's knee (44 raw errors): every frame it decodes is the
    word the ldpc package's decoder finds from the same hard bits on the same matrix (a
    miscorrection would disagree), and it decodes no frame the package cannot."""
    code = pif_code()
    words, received, _ = _frames(errors=44, count=16, seed=8)
    out, ok, _ = bitflip_decode(code, received)
    # the hard-decision channel: every bit wrong with the frames' raw error rate
    magnitudes = np.full(code.n, np.log((code.n - 44) / 44))
    agreed = 0
    for f in range(len(words)):
        theirs, converged = _ldpc_decisions(received[f], magnitudes)
        if ok[f]:
            assert converged and (out[f] == theirs).all() and (theirs == words[f]).all()
            agreed += 1
    assert agreed >= 8  # most frames decode at 44 errors (docs/codes.md: 42 at FER 1e-3)


def test_min_sum_with_soft_bits_corrects_what_bitflip_cannot() -> None:
    code = pif_code()
    words, received, positions = _frames(errors=100, count=3, seed=7)
    weak = np.zeros_like(received)
    for f, pos in enumerate(positions):
        weak[f, pos[:85]] = 1
    flip_out, flip_ok, _ = bitflip_decode(code, received)
    assert not flip_ok.any()
    out, ok, _ = min_sum_decode(code, soft_read_llrs(received, weak, 4.0, 1.0))
    assert ok.all()
    assert (out == words).all()


def test_soft_read_llrs_sign_is_the_bit_and_magnitude_the_reliability() -> None:
    llr = soft_read_llrs(np.array([0, 1, 0, 1]), np.array([0, 0, 1, 1]), 6.0, 1.5)
    assert llr.tolist() == [6.0, -6.0, 1.5, -1.5]
    with pytest.raises(RangeError):
        soft_read_llrs(np.zeros(3), np.zeros(4), 6.0, 1.5)
    with pytest.raises(RangeError):
        soft_read_llrs(np.zeros(3), np.zeros(3), 1.0, 2.0)


def test_decoders_reject_frames_of_the_wrong_length() -> None:
    code = pif_code()
    with pytest.raises(RangeError):
        bitflip_decode(code, np.zeros(9215, np.uint8))
    with pytest.raises(RangeError):
        min_sum_decode(code, np.zeros((2, 9217)))
