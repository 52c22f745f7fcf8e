"""A run's log, kept in its folder (RUN_DIR/run.log) beside its rows.

The runner logs what it does (units started and committed, stops) to the `nandlab`
loggers; while a run measures, a handler appends those records to run.log, so a resume
continues the same file. What reaches it follows the `nandlab` logger's level: the
command line sets DEBUG (everything); a library user's logging configuration decides
otherwise. Timestamps are UTC, as everywhere in a run folder.
"""

from __future__ import annotations

import functools
import inspect
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

R = TypeVar("R")

RUN_LOG = "run.log"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

log = logging.getLogger("nandlab.campaign")


def utc_formatter() -> logging.Formatter:
    """Log lines stamped in UTC, ISO 8601 with a Z (a lab's machines disagree on zones)."""
    formatter = logging.Formatter(LOG_FORMAT, "%Y-%m-%dT%H:%M:%SZ")
    formatter.converter = time.gmtime
    return formatter


@contextmanager
def run_log(run_dir: Path) -> Iterator[None]:
    """Append the `nandlab` log records to run_dir/run.log while the block runs; none when
    the folder refuses the file (the run's own first write then says why, as it would)."""
    try:
        handler = logging.FileHandler(run_dir / RUN_LOG, encoding="utf-8")
    except OSError:
        yield
        return
    handler.setFormatter(utc_formatter())
    logger = logging.getLogger("nandlab")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        handler.close()


def logged_run(measure: Callable[..., R]) -> Callable[..., R]:
    """Run `measure` (which takes a `run_dir`) with its log kept in run_dir/run.log, its
    start and its end (complete, or the exception that stopped it) logged."""
    signature = inspect.signature(measure)

    @functools.wraps(measure)
    def logged(*args: Any, **kwargs: Any) -> R:
        run_dir = Path(signature.bind(*args, **kwargs).arguments["run_dir"])
        with run_log(run_dir):
            log.debug("run %s: measuring in %s", run_dir.name, run_dir)
            try:
                result = measure(*args, **kwargs)
            except BaseException as exc:
                log.debug("run %s: stopped (%s: %s)", run_dir.name, type(exc).__name__, exc)
                raise
            log.debug("run %s: complete", run_dir.name)
            return result

    return logged
