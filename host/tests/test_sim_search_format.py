"""Search-in-Memory page format: CRC-64, chunk ECC, randomisation, verification read, bitmaps."""

from __future__ import annotations

import numpy as np
import pytest

from nandlab.onfi_spec import search as fmt


def test_crc64_check_value() -> None:
    # the published check value of CRC-64/XZ (the CRC catalogue's "123456789" test)
    assert fmt.crc64(b"123456789") == 0x995DC9BBDF1939FA


def test_chunk_ecc_corrects_one_bit_and_refuses_two() -> None:
    rng = np.random.default_rng(4)
    chunk = rng.integers(0, 256, fmt.CHUNK_BYTES, dtype=np.uint8).tobytes()
    ecc = fmt.chunk_ecc(chunk)
    assert len(ecc) == fmt.CHUNK_ECC_BYTES
    assert fmt.correct_chunk(chunk, ecc) == (chunk, 0)
    for bit in range(fmt.CHUNK_BYTES * 8):
        bad = bytearray(chunk)
        bad[bit // 8] ^= 0x80 >> (bit % 8)
        assert fmt.correct_chunk(bytes(bad), ecc) == (chunk, 1), bit
    for bit in range(11):  # an error in the Hamming parity word leaves the data alone
        bad_ecc = bytearray(ecc)
        bad_ecc[bit // 8] ^= 1 << (bit % 8)
        assert fmt.correct_chunk(chunk, bytes(bad_ecc)) == (chunk, 0)
    for a, b in rng.choice(512, size=(200, 2), replace=True):
        if a == b:
            continue
        bad = bytearray(chunk)
        bad[a // 8] ^= 0x80 >> (a % 8)
        bad[b // 8] ^= 0x80 >> (b % 8)
        assert fmt.correct_chunk(bytes(bad), ecc) is None


def _page(seed: int = 1) -> tuple[bytes, bytes]:
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, fmt.DATA_SLOTS * fmt.SLOT_BYTES, dtype=np.uint8).tobytes()
    return data, fmt.encode_page(7, 3, data, timestamp=1234, user_header=b"leaf")


def test_page_layout_and_randomisation() -> None:
    data, stored = _page()
    assert len(stored) == fmt.DATA_BYTES + fmt.SPARE_BYTES == 4096 + 256
    plain = fmt.derandomize(7, 3, 0, stored[: fmt.DATA_BYTES])
    assert plain[fmt.CHUNK_BYTES :] == data
    assert plain[8:16] == fmt.MAGIC and fmt.timestamp_of(plain) == 1234
    assert plain[24:28] == b"leaf"
    # randomised: the stored bytes are not the plain ones, and every chunk has its own stream
    assert stored[fmt.CHUNK_BYTES : fmt.DATA_BYTES] != data
    streams = {fmt.chunk_stream(7, 3, c).tobytes() for c in range(fmt.CHUNKS)}
    assert len(streams) == fmt.CHUNKS
    assert fmt.chunk_stream(7, 4, 0).tobytes() not in streams
    # any run of chunks de-randomises on its own (what a gather needs)
    c = 17
    run = stored[c * 64 : (c + 2) * 64]
    assert fmt.derandomize(7, 3, c, run) == plain[c * 64 : (c + 2) * 64]
    for c in range(fmt.CHUNKS):
        ecc = stored[4096 + 4 * c : 4096 + 4 * c + 4]
        assert ecc == fmt.chunk_ecc(stored[c * 64 : (c + 1) * 64])


def test_verification_read_catches_every_single_bit_error() -> None:
    _, stored = _page()
    sample = stored[: fmt.SAMPLE_BYTES]
    assert fmt.sample_ok(7, 3, sample)
    assert not fmt.sample_ok(7, 4, sample)  # another page's stream: not this page
    for bit in range(fmt.SAMPLE_BYTES * 8):
        bad = bytearray(sample)
        bad[bit // 8] ^= 0x80 >> (bit % 8)
        assert not fmt.sample_ok(7, 3, bytes(bad)), bit


def test_bitmaps() -> None:
    bits = np.zeros(fmt.SLOTS, dtype=bool)
    bits[[0, 9, 511]] = True
    bm = fmt.bits_to_bitmap(bits)
    assert len(bm) == fmt.BITMAP_BYTES and bm[0] == 0x01 and bm[1] == 0x02 and bm[63] == 0x80
    assert (fmt.bitmap_bits(bm) == bits).all()
    assert fmt.chunk_map([0, 63]) == b"\x01" + b"\x00" * 6 + b"\x80"
    with pytest.raises(ValueError):
        fmt.chunk_map([64])
    with pytest.raises(ValueError):
        fmt.encode_page(0, 0, b"\x00" * 10)
