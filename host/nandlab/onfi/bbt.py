"""A persistent bad-block table per chip, keyed by the chip's unique ID.

The factory bad-block marker (first spare byte of page 0 != FFh) can only be
trusted before a block is first programmed: raw characterization writes the
spare area too. So the chip layer reads each block's marker once, the first
time it touches the block, and keeps the answer here for good, as flash
translation layers keep a bad-block table. It lives in
`<data dir>/chips/<unique id>/bbt.json`, written crash-safely.
"""

from __future__ import annotations

import json
from pathlib import Path

from nandlab.errors import DamagedFileError
from nandlab.paths import data_root, write_atomic


class BadBlockTable:
    """Blocks checked so far on one chip: block -> bad."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._bad: dict[int, bool] = {}
        if path is not None and path.is_file():
            self._bad = _load(path)

    @classmethod
    def for_chip(cls, unique_id_hex: str, root: Path | None = None) -> BadBlockTable:
        return cls(data_root(root) / "chips" / unique_id_hex / "bbt.json")

    def get(self, block: int) -> bool | None:
        """True / False once the block was checked, None before."""
        return self._bad.get(block)

    def record(self, block: int, bad: bool) -> None:
        self._bad[block] = bad
        if self.path is not None:
            self._save()

    def _save(self) -> None:
        assert self.path is not None
        doc = {"format": 1, "blocks": {str(b): v for b, v in sorted(self._bad.items())}}
        write_atomic(self.path, json.dumps(doc).encode())

    def replace(self, other: BadBlockTable) -> None:
        """Take `other`'s answers as this table's, and store them."""
        self._bad = dict(other._bad)
        if self.path is not None:
            self._save()

    def forget(self) -> None:
        """Drop every answer (a virtual die started fresh: its markers are read again)."""
        self._bad = {}
        if self.path is not None:
            self.path.unlink(missing_ok=True)

    def bad_blocks(self) -> list[int]:
        return sorted(b for b, v in self._bad.items() if v)


def _load(path: Path) -> dict[int, bool]:
    """The table in `path`; DamagedFileError when it cannot be read as one."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        return {int(b): bool(v) for b, v in doc["blocks"].items()}
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise DamagedFileError(
            f"the bad-block table {path} is damaged ({type(exc).__name__}: {exc}). It keeps "
            "the factory bad-block markers read before data overwrote them: restore it from a "
            "backup; for a virtual die, start it fresh (--fresh) instead. Deleting it makes "
            "the chip layer read the markers again, which cannot be trusted on programmed blocks"
        ) from None
