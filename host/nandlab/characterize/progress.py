"""Progress reporting from long measurements, without printing.

A measurement calls `progress(task, done, total)` as it goes; the CLI turns
the calls into progress bars. `task` is a short human label; calls for one
task carry the same label and a growing `done`.
"""

from __future__ import annotations

from collections.abc import Callable

ProgressFn = Callable[[str, int, int], None]


def no_progress(task: str, done: int, total: int) -> None:
    """The default: report nothing."""
