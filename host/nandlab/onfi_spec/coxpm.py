"""CoX-PM page format and command protocol, shared by the die and the host.

After PiF / CoX-PM (shared/papers/pif-cox.txt): a 3D TLC part that decodes each
page it senses with a weak in-chip LDPC decoder and runs a multi-pattern
matcher on the corrected data. The command bytes come from the profile's
`vendor.coxpm` section (contract 3); this module is the rest of what a
controller and a CoX-PM part agree on.

Page format: the data area is split into 1 KiB sub-pages. Each sub-page is
stored XORed with a pseudo-random stream keyed by (block, page) (data
randomisation, so the TLC states stay balanced whatever the data) and is the
message of one codeword of the (9216, 8192) QC-LDPC code (`nandlab.codes`);
its 128 parity bytes go to the spare area at `page_bytes + 128 * i`. Spare
bytes past the parity read FFh.

Commands (bytes from `vendor.coxpm`; the row is the part's row address cycles):

- set_pattern: CMD pattern_cmd, DIN patterns (`pattern_bytes`: a count, then
  each pattern as its length and its bytes), CMD pattern_confirm; busy
  t_set_pattern_us. A malformed list (none, more than `MAX_PATTERNS`, an empty
  pattern or one longer than `MAX_PATTERN_BYTES`, a truncated list) sets FAIL
  and clears the patterns.
- read_when_matched: CMD match_cmd, ADDR row, CMD match_confirm; busy tR + the
  decode and match (t_decode_match_us). Status bits 4-3 (`outcome_of`): 01
  matched, 00 not matched, 10 decoding failure. Data out from column 0: the
  page's plain data (decoded, de-randomised) when matched; nothing (FFh) when
  not; the sensed page as stored (data + spare, like a page read) on a
  decoding failure, for the controller's strong decoder.
- Cache form: CMD match_cmd, ADDR row, CMD match_cache_confirm senses the row
  while the page sensed by the previous cache form is decoded and matched;
  outcome and data out are the previous page's (not matched when there is none).
  CMD match_last_cmd decodes and matches the last sensed page without sensing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from enum import IntEnum

import numpy as np

from nandlab.errors import RangeError

SUBPAGE_BYTES = 1024
"""Payload of one codeword (8192 message bits)."""
PARITY_BYTES = 128
"""Parity of one codeword (1024 bits), in the spare area."""
MAX_PATTERNS = 8
MAX_PATTERN_BYTES = 32
STATUS_SHIFT = 3
STATUS_MASK = 0b11 << STATUS_SHIFT


class Outcome(IntEnum):
    """read_when_matched's result, as bits 4-3 of the status byte."""

    NOT_MATCHED = 0
    MATCHED = 1
    DECODING_FAILURE = 2


def outcome_of(status: int) -> Outcome:
    """The outcome in status bits 4-3; RangeError for the unused code 11."""
    code = (status & STATUS_MASK) >> STATUS_SHIFT
    if code == 3:
        raise RangeError(f"status {status:#04x}: bits 4-3 = 11 is no read_when_matched outcome")
    return Outcome(code)


def status_bits(outcome: Outcome) -> int:
    return int(outcome) << STATUS_SHIFT


def layout_problem(page_bytes: int, spare_bytes: int) -> str | None:
    """Why a page of this geometry cannot hold the CoX-PM format, or None."""
    if page_bytes % SUBPAGE_BYTES:
        return f"a {page_bytes}-byte page is no whole number of 1 KiB sub-pages"
    need = page_bytes // SUBPAGE_BYTES * PARITY_BYTES
    if spare_bytes < need:
        return f"the parity needs {need} spare bytes, the page has {spare_bytes}"
    return None


def pattern_bytes(patterns: Sequence[bytes]) -> bytes:
    """set_pattern's data in: count, then length + bytes of each; RangeError if the
    matcher cannot hold them."""
    pats = [bytes(p) for p in patterns]
    if not 1 <= len(pats) <= MAX_PATTERNS:
        raise RangeError(f"{len(pats)} patterns: the matcher holds 1 to {MAX_PATTERNS}")
    for i, p in enumerate(pats):
        if not 1 <= len(p) <= MAX_PATTERN_BYTES:
            raise RangeError(
                f"pattern {i} is {len(p)} bytes: patterns are 1 to {MAX_PATTERN_BYTES} bytes"
            )
    return bytes([len(pats)]) + b"".join(bytes([len(p)]) + p for p in pats)


def parse_patterns(data: bytes) -> list[bytes] | None:
    """The patterns in set_pattern's data in, or None when malformed (the die's check)."""
    if not data or not 1 <= data[0] <= MAX_PATTERNS:
        return None
    pats, pos = [], 1
    for _ in range(data[0]):
        if pos >= len(data) or not 1 <= data[pos] <= MAX_PATTERN_BYTES:
            return None
        n = data[pos]
        if pos + 1 + n > len(data):
            return None
        pats.append(bytes(data[pos + 1 : pos + 1 + n]))
        pos += 1 + n
    return pats


def matches(data: bytes, patterns: Sequence[bytes]) -> bool:
    """Whether any pattern occurs in `data` (a page's plain data area)."""
    return any(p in data for p in patterns)


def page_stream(block: int, page: int, n: int) -> np.ndarray:
    """The randomisation stream of (block, page): BLAKE2b in counter mode, `n` bytes."""
    out = bytearray()
    counter = 0
    while len(out) < n:
        tag = f"coxpm/{block}/{page}/{counter}".encode()
        out += hashlib.blake2b(tag, digest_size=64).digest()
        counter += 1
    return np.frombuffer(bytes(out[:n]), dtype=np.uint8)


def encode_page(block: int, page: int, data: bytes, page_bytes: int, spare_bytes: int) -> bytes:
    """The stored page (data + spare) holding `data` (at most page_bytes; zero padded)."""
    problem = layout_problem(page_bytes, spare_bytes)
    if problem is not None:
        raise RangeError(f"CoX-PM page format: {problem}")
    if len(data) > page_bytes:
        raise RangeError(f"{len(data)} bytes do not fit a {page_bytes}-byte page")
    plain = np.frombuffer(bytes(data).ljust(page_bytes, b"\x00"), dtype=np.uint8)
    stored = plain ^ page_stream(block, page, page_bytes)
    # the code (and numba with it) loads on first use: a die only identified starts without it
    from nandlab.codes import pif_code

    frames = page_bytes // SUBPAGE_BYTES
    words = pif_code().encode(np.unpackbits(stored.reshape(frames, SUBPAGE_BYTES), axis=1))
    parity = np.packbits(words[:, SUBPAGE_BYTES * 8 :], axis=1).tobytes()
    spare = parity.ljust(spare_bytes, b"\xff")
    return stored.tobytes() + spare


def codewords(raw: bytes, page_bytes: int) -> np.ndarray:
    """The codewords of a stored page as read (frames x 9216 bits, [message | parity])."""
    frames = page_bytes // SUBPAGE_BYTES
    arr = np.frombuffer(raw, dtype=np.uint8)
    msg = np.unpackbits(arr[:page_bytes].reshape(frames, SUBPAGE_BYTES), axis=1)
    par = arr[page_bytes : page_bytes + frames * PARITY_BYTES].reshape(frames, PARITY_BYTES)
    return np.concatenate([msg, np.unpackbits(par, axis=1)], axis=1)


def plain_data(block: int, page: int, words: np.ndarray) -> bytes:
    """The plain data area from decoded codewords (their message bits, de-randomised)."""
    stored = np.packbits(words[:, : SUBPAGE_BYTES * 8], axis=1).reshape(-1)
    return (stored ^ page_stream(block, page, stored.size)).tobytes()
