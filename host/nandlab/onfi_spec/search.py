"""Search-in-Memory (SiM) page format and command protocol, shared by the die and the host.

After Chen, Chang and Kuo, "Search-in-Memory" (shared/papers/search-in-memory.txt).
The command bytes come from the profile's `vendor.search` section (contract 3);
this module is the rest of what a controller and a SiM part agree on.

Page format (4 KiB data area + 256 B spare area of an SLC page):

- The data area is 512 slots of 8 bytes, grouped into 64 chunks of 8 slots
  (64 bytes). Chunk 0 is the page header: slot 0 the write timestamp (seconds,
  big endian), slot 1 `MAGIC`, slot 2 a CRC-64/XZ over the first `SAMPLE_BYTES`
  of the page with slot 2 left out, slots 3..7 free for the user's header
  (`USER_HEADER_BYTES`). Slots 8..511 hold the user's data (`DATA_SLOTS`).
- Every chunk is stored XORed with its own pseudo-random stream
  (`chunk_stream`), seeded by (block, page, chunk), so a gather can de-randomise
  chunks that are not contiguous.
- The spare area holds each chunk's 4-byte ECC (`chunk_ecc`) at
  `page_bytes + 4 * chunk`, over the stored (randomised) chunk bytes: a
  SEC-DED extended Hamming code (11 bits, corrects one bit error per chunk,
  detects two) and a CRC-16 that catches what the Hamming decoder cannot.

Commands (bytes from `vendor.search`; the row is the part's row address cycles):

- page-open: CMD open_cmd, ADDR row, CMD open_confirm; busy tR; data out then reads
  the stored page from column 0 (the host takes the `SAMPLE_BYTES` verification read).
  With open_cache_confirm instead, the page is sensed into L1 while the active page
  stays the search operand and nothing is output (the paper's page-open-cache).
- page-close: CMD close_cmd: releases the active page; a page loaded by
  page-open-cache becomes the active one and data out reads it from column 0.
- search: CMD search_cmd, DIN key (8 B) + mask (8 B) + threshold t (1 B), CMD
  search_confirm; busy t_search_us; data out reads the `BITMAP_BYTES` bitmap: bit s
  (byte s // 8, bit s % 8) is 1 where (slot s XOR key) AND mask has at most t one bits
  on the sensed page (the failed-bit count of the slot's 64-bitline group against t;
  t = 0 is the exact match). A t above `MAX_THRESHOLD` makes the search a no-op.
- gather: CMD gather_cmd, DIN chunk bitmap (8 B, bit c = chunk c), CMD
  gather_confirm; data out reads each selected chunk, in chunk order, as its
  64 stored bytes followed by its 4 ECC bytes (`GATHER_UNIT`).
Search and gather without an active page are ignored (data out reads FFh).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np

from nandlab.onfi_spec.parampage import crc16

SLOT_BYTES = 8
SLOTS = 512
CHUNK_SLOTS = 8
CHUNK_BYTES = SLOT_BYTES * CHUNK_SLOTS
CHUNKS = SLOTS // CHUNK_SLOTS
DATA_BYTES = SLOTS * SLOT_BYTES
KEY_BYTES = 8
BITMAP_BYTES = SLOTS // 8
CHUNK_MAP_BYTES = CHUNKS // 8
CHUNK_ECC_BYTES = 4
SPARE_BYTES = CHUNKS * CHUNK_ECC_BYTES
GATHER_UNIT = CHUNK_BYTES + CHUNK_ECC_BYTES
SAMPLE_BYTES = 256
"""The verification read: the header chunk and the first three data chunks."""
SEARCH_DIN_BYTES = 2 * KEY_BYTES + 1
"""A search's data in: key, mask and the failed-bit threshold."""
MAX_THRESHOLD = SLOT_BYTES * 8 - 1
"""The largest failed-bit threshold: a group counts 0..64 failed bits, and t = 64 would
report every slot."""
CHUNK_DETECTS = 2
"""Bit errors per chunk (data + its ECC bytes) the chunk code always sees: SEC-DED corrects
one and detects two (minimum distance 4); three or more can be miscorrected, and then only
the CRC-16 stands between a miscorrection and the host (it misses 1 in 2^16)."""
HEADER_SLOTS = CHUNK_SLOTS
DATA_SLOTS = SLOTS - HEADER_SLOTS
USER_HEADER_BYTES = (HEADER_SLOTS - 3) * SLOT_BYTES
MAGIC = b"nandSiM1"
_CRC_FIELD = slice(2 * SLOT_BYTES, 3 * SLOT_BYTES)

# CRC-64/XZ (ECMA-182 polynomial, reflected, init and xorout all ones)
_CRC64_POLY = 0xC96C5795D7870F42
_CRC64_TABLE: list[int] = []
for _b in range(256):
    _c = _b
    for _ in range(8):
        _c = (_c >> 1) ^ _CRC64_POLY if _c & 1 else _c >> 1
    _CRC64_TABLE.append(_c)


def crc64(data: bytes) -> int:
    """CRC-64/XZ of `data` (check value of b"123456789": 995DC9BBDF1939FAh)."""
    crc = 0xFFFFFFFFFFFFFFFF
    table = _CRC64_TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFFFFFFFFFF


def chunk_stream(block: int, page: int, chunk: int) -> np.ndarray:
    """The randomiser stream (64 uint8) of one chunk: BLAKE2b of (block, page, chunk)."""
    seed = block.to_bytes(4, "big") + page.to_bytes(4, "big") + bytes([chunk])
    digest = hashlib.blake2b(seed, digest_size=CHUNK_BYTES, person=b"nandlab-SiM").digest()
    return np.frombuffer(digest, dtype=np.uint8)


def page_stream(block: int, page: int) -> np.ndarray:
    """The randomiser stream of the whole data area (DATA_BYTES uint8)."""
    return np.concatenate([chunk_stream(block, page, c) for c in range(CHUNKS)])


# ---------------------------------------------------------------- chunk ECC

_POWERS = {1 << k for k in range(11)}
# Hamming position of data bit i (MSB of byte 0 first): the i-th integer >= 3 that is
# not a power of two; the 10 parity bits sit at the powers of two.
_POSITIONS = np.array([p for p in range(3, 1024) if p not in _POWERS][: CHUNK_BYTES * 8])
_DATA_BIT = {int(p): i for i, p in enumerate(_POSITIONS)}


def _syndrome(bits: np.ndarray) -> int:
    return int(np.bitwise_xor.reduce(_POSITIONS[bits.astype(bool)], initial=0))


def chunk_ecc(stored: bytes | np.ndarray) -> bytes:
    """The 4 ECC bytes of one stored chunk: Hamming parity (10 bits) and the overall
    parity bit (bit 10) little endian, then the chunk's CRC-16 (ONFI polynomial)."""
    data = np.frombuffer(bytes(stored), dtype=np.uint8)
    bits = np.unpackbits(data)
    parity = _syndrome(bits)
    overall = (int(bits.sum()) + parity.bit_count()) & 1
    return (parity | overall << 10).to_bytes(2, "little") + crc16(bytes(data)).to_bytes(2, "little")


def correct_chunk(stored: bytes, ecc: bytes) -> tuple[bytes, int] | None:
    """The chunk after correction and the bits corrected (0 or 1); None when uncorrectable
    (two or more bit errors, or a CRC-16 mismatch after the Hamming step)."""
    word = int.from_bytes(ecc[:2], "little")
    parity, overall = word & 0x3FF, word >> 10 & 1
    bits = np.unpackbits(np.frombuffer(stored, dtype=np.uint8))
    s = _syndrome(bits) ^ parity
    odd = (int(bits.sum()) + parity.bit_count() + overall) & 1
    fixed = 0
    if odd:
        if s in _DATA_BIT:
            bits[_DATA_BIT[s]] ^= 1
            fixed = 1
        elif s != 0 and s not in _POWERS:
            return None
    elif s != 0:
        return None
    data = np.packbits(bits).tobytes()
    if crc16(data) != int.from_bytes(ecc[2:4], "little"):
        return None
    return data, fixed


# ------------------------------------------------------------- page format


def encode_page(
    block: int, page: int, slots: bytes, *, timestamp: int = 0, user_header: bytes = b""
) -> bytes:
    """The stored page (data + spare) for `slots` (DATA_SLOTS * 8 bytes of user data)."""
    if len(slots) != DATA_SLOTS * SLOT_BYTES:
        raise ValueError(f"a SiM page holds {DATA_SLOTS * SLOT_BYTES} data bytes, got {len(slots)}")
    if len(user_header) > USER_HEADER_BYTES:
        raise ValueError(f"the user header holds at most {USER_HEADER_BYTES} bytes")
    header = bytearray(CHUNK_BYTES)
    header[0:8] = int(timestamp).to_bytes(8, "big")
    header[8:16] = MAGIC
    header[24 : 24 + len(user_header)] = user_header
    plain = bytearray(header) + bytearray(slots)
    plain[_CRC_FIELD] = crc64(_sample_for_crc(bytes(plain[:SAMPLE_BYTES]))).to_bytes(8, "big")
    stored = np.frombuffer(bytes(plain), dtype=np.uint8) ^ page_stream(block, page)
    spare = b"".join(
        chunk_ecc(stored[c * CHUNK_BYTES : (c + 1) * CHUNK_BYTES]) for c in range(CHUNKS)
    )
    return stored.tobytes() + spare


def _sample_for_crc(plain_sample: bytes) -> bytes:
    return plain_sample[: _CRC_FIELD.start] + plain_sample[_CRC_FIELD.stop :]


def derandomize(block: int, page: int, first_chunk: int, stored: bytes) -> bytes:
    """Plain bytes of whole stored chunks starting at `first_chunk`."""
    n = len(stored) // CHUNK_BYTES
    stream = np.concatenate([chunk_stream(block, page, first_chunk + i) for i in range(n)])
    return (np.frombuffer(stored, dtype=np.uint8) ^ stream).tobytes()


def sample_ok(block: int, page: int, sample: bytes) -> bool:
    """Whether a stored verification read (SAMPLE_BYTES) has the magic and its CRC-64."""
    plain = derandomize(block, page, 0, sample[:SAMPLE_BYTES])
    crc = int.from_bytes(plain[_CRC_FIELD], "big")
    return plain[8:16] == MAGIC and crc64(_sample_for_crc(plain)) == crc


def timestamp_of(plain_header: bytes) -> int:
    """The write timestamp of a plain header chunk."""
    return int.from_bytes(plain_header[0:8], "big")


# ------------------------------------------------------------------ bitmaps


def search_din(key: bytes, mask: bytes, threshold: int) -> bytes:
    """The data-in bytes of a search: key, mask (8 B each) and the failed-bit threshold."""
    if len(key) != KEY_BYTES or len(mask) != KEY_BYTES:
        raise ValueError(f"key and mask are {KEY_BYTES} bytes each")
    if not 0 <= threshold <= MAX_THRESHOLD:
        raise ValueError(f"failed-bit threshold {threshold} out of range 0..{MAX_THRESHOLD}")
    return key + mask + bytes([threshold])


def bitmap_bits(bitmap: bytes) -> np.ndarray:
    """A slot (or chunk) bitmap as bools, bit s = byte s // 8, bit s % 8."""
    return np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), bitorder="little").astype(bool)


def bits_to_bitmap(bits: np.ndarray) -> bytes:
    """The inverse of `bitmap_bits`."""
    return np.packbits(np.asarray(bits, dtype=np.uint8), bitorder="little").tobytes()


def chunk_map(chunks: Iterable[int]) -> bytes:
    """The 8-byte chunk bitmap of a gather."""
    bits = np.zeros(CHUNKS, dtype=bool)
    for c in chunks:
        if not 0 <= c < CHUNKS:
            raise ValueError(f"chunk {c} out of range 0..{CHUNKS - 1}")
        bits[c] = True
    return bits_to_bitmap(bits)
