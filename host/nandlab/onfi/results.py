"""What chip operations return: small frozen records with their busy times (ns)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nandlab.ops import Results


@dataclass(frozen=True)
class PageRead:
    """Bytes read from one page (from `column`), and the array busy time tR in ns."""

    block: int
    page: int
    data: bytes
    busy_ns: int
    slc: bool = False
    column: int = 0


@dataclass(frozen=True)
class OpResult:
    """Outcome of a program / erase / copyback: final status byte and busy time(s) in ns.

    busy_ns is the total R/B# low time of the operation; per-step times (one
    per WAIT_RDY, e.g. per plane or per cached page) are in `busy_steps_ns`.
    """

    status: int
    busy_ns: int
    busy_steps_ns: tuple[int, ...] = ()

    @classmethod
    def of(cls, status: int, results: Results) -> OpResult:
        """`status` with the busy times of the run's `results`."""
        steps = busy_steps(results)
        return cls(status, sum(steps), steps)


@dataclass(frozen=True)
class Identification:
    """What `Chip.identify()` learned about the target.

    id_bytes: READ ID 00h bytes. onfi_signature: READ ID 20h bytes (b"ONFI").
    parameter_page: the page used (256 bytes); parameter_page_copies: every
    copy as read. parameter_page_copy: index of the first copy whose CRC
    passed, or None when the bitwise majority was used (majority=True).
    fields: the decoded parameter page. unique_id: 16 bytes as hex;
    unique_id_copy: the first copy that matched its complement.
    """

    id_bytes: bytes
    onfi_signature: bytes
    parameter_page: bytes
    parameter_page_copies: tuple[bytes, ...]
    parameter_page_copy: int | None
    majority: bool
    fields: dict[str, Any] = field(compare=False)
    unique_id: str
    unique_id_copy: int

    @property
    def manufacturer(self) -> str:
        return str(self.fields["manufacturer"])

    @property
    def model(self) -> str:
        return str(self.fields["model"])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (bytes as hex)."""
        return {
            "id_bytes": self.id_bytes.hex(),
            "onfi_signature": self.onfi_signature.decode("ascii", errors="replace"),
            "parameter_page_copy": self.parameter_page_copy,
            "majority": self.majority,
            "fields": {k: (v.hex() if isinstance(v, bytes) else v) for k, v in self.fields.items()},
            "unique_id": self.unique_id,
            "unique_id_copy": self.unique_id_copy,
        }


def data_records(results: Results) -> list[bytes]:
    """The bytes of every DATA record of a run, in order."""
    return [bytes(d) for d in results.data]


def busy_steps(results: Results) -> tuple[int, ...]:
    """The busy time (ns) of every WAIT_RDY of a run, in order."""
    return tuple(int(b) for b in results.busy_ns)
