"""Progress on long CLI work: a rich progress bar on a terminal, log lines otherwise.

The library reports progress through a plain callback (``step(label)``); only the CLI decides
how to show it, so tests and pipes get no control characters.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Step", "progress"]

logger = logging.getLogger(__name__)

#: Called once per finished unit of work with a short label of what was done.
Step = Callable[[str], None]


@contextmanager
def progress(total: int, description: str, *, enabled: bool | None = None) -> Iterator[Step]:
    """Yield a ``step(label)`` callback for ``total`` units of work.

    On a terminal (or with ``enabled=True``) it draws a bar on stderr; otherwise each step is
    an INFO log line (shown by ``ledger -v``).
    """
    show = sys.stderr.isatty() if enabled is None else enabled
    if not show:
        started, done = time.monotonic(), 0

        def log_step(label: str) -> None:
            nonlocal done
            done += 1
            logger.info("%s: %d/%d %s (%.1f s)", description, done, total, label,
                        time.monotonic() - started)

        yield log_step
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True, force_terminal=True), transient=True) as bar:
        task = bar.add_task(description, total=total)
        yield lambda label: bar.update(task, advance=1, description=f"{description}: {label}")
