"""Progress of long work (`wire export`, a channel's first backfill over a long window).

    activities = await progress.gather(sources, window, label="export")

is `digest.pipeline.gather` (every source's activity, deduplicated, in landing order), with
each source watched as it yields, to report how far the work got: on a terminal a
rich progress bar on stderr, elsewhere a plain line every `interval` seconds
("export: 40% of the window, 1,204 records, 12 s") and a last one when it ends. How far
is measured in time: the share of the window a source has yielded activity across, whichever
end it starts from, summed over the sources.

A leaf (rank 0): rich and the digest's model only. The reporter defaults to one chosen for
stderr; `reporting(reporter)` sets another for a block (the CLI's, a test's).
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from digest import pipeline
from digest.model import Activity, Window
from digest.sources import Source

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

log = logging.getLogger("wire.progress")
STEPS = 1000  # the bar's resolution


class Reporter(Protocol):
    """Shows one piece of long work as it goes."""

    def start(self, label: str) -> None: ...
    def update(self, done: float, records: int) -> None: ...
    def finish(self, records: int) -> None: ...
    def close(self) -> None: ...


class LineReporter:
    """Plain lines for logs and pipes: one every `interval` seconds, and one at the end
    (`always_finish=False`: only when the work outlasted one interval, for a service
    whose short gathers should say nothing)."""

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        interval: float = 5.0,
        always_finish: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.write = write
        self.interval = interval
        self.always_finish = always_finish
        self.clock = clock
        self.label = ""
        self._started = self._last = 0.0
        self._said = False

    def start(self, label: str) -> None:
        self.label = label
        self._started = self._last = self.clock()
        self._said = False

    def _line(self, done: float, records: int) -> None:
        elapsed = self.clock() - self._started
        self.write(f"{self.label}: {done:.0%} of the window, {records:,} records, {elapsed:.0f} s")
        self._said = True

    def update(self, done: float, records: int) -> None:
        if self.clock() - self._last >= self.interval:
            self._last = self.clock()
            self._line(done, records)

    def finish(self, records: int) -> None:
        if self.always_finish or self._said:
            self._line(1.0, records)

    def close(self) -> None:
        """Nothing to release."""


class BarReporter:
    """A rich progress bar on a terminal, shown once the work has lasted `delay` seconds
    (0: at once), and taken off when it ends."""

    def __init__(
        self, stream: TextIO, *, delay: float = 0.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        from rich.console import Console

        self.console = Console(file=stream, highlight=False)
        self.delay = delay
        self.clock = clock
        self.label = ""
        self._started = 0.0
        self._bar: Progress | None = None
        self._task: TaskID | None = None  # the bar's one task, set with it

    @property
    def shown(self) -> bool:
        """Whether the bar is on the terminal now."""
        return self._bar is not None

    def start(self, label: str) -> None:
        self.label = label
        self._started = self.clock()
        if self.delay <= 0:
            self._show()

    def _show(self) -> None:
        from rich.progress import (
            BarColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        self._bar = Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[records]:,} records"),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
        )
        self._bar.start()
        self._task = self._bar.add_task(self.label, total=STEPS, records=0)

    def update(self, done: float, records: int) -> None:
        if self._bar is None and self.clock() - self._started >= self.delay:
            self._show()
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=round(done * STEPS), records=records)

    def finish(self, records: int) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=STEPS, records=records)
        self.close()

    def close(self) -> None:
        """Take the bar off the terminal (also when the work failed)."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def for_stream(stream: TextIO, *, interval: float = 5.0) -> Reporter:
    """A bar when `stream` is a terminal, else plain lines written to it."""
    if stream.isatty():
        return BarReporter(stream)
    return LineReporter(lambda line: print(line, file=stream, flush=True), interval=interval)


def for_service(*, interval: float = 30.0, delay: float = 3.0) -> Reporter:
    """For work inside the service, only when it lasts: a bar on a terminal's stderr after
    `delay` seconds, else log lines after `interval`."""
    if sys.stderr.isatty():
        return BarReporter(sys.stderr, delay=delay)
    return LineReporter(log.info, interval=interval, always_finish=False)


_current: ContextVar[Reporter | None] = ContextVar("wire_progress", default=None)


@contextmanager
def reporting(reporter: Reporter) -> Iterator[Reporter]:
    """Report the long work of this block with `reporter`."""
    token = _current.set(reporter)
    try:
        yield reporter
    finally:
        _current.reset(token)


def covered(window: Window, earliest: datetime, latest: datetime) -> float:
    """The share of `window` between its nearer end and the activity seen so far."""
    span = (window.until - window.since).total_seconds()
    if span <= 0:
        return 1.0
    reach = max(window.until - earliest, latest - window.since).total_seconds()
    return min(max(reach / span, 0.0), 1.0)


class _Watched:
    """A source whose `fetch` reports each activity it yields (all else is the source's)."""

    def __init__(self, source: Source, on_activity: Callable[[Activity | None], None]) -> None:
        self._source = source
        self._on_activity = on_activity

    def __getattr__(self, name: str) -> Any:
        return getattr(self._source, name)

    async def fetch(self, window: Window) -> AsyncIterator[Activity]:
        async for activity in self._source.fetch(window):
            self._on_activity(activity)
            yield activity
        self._on_activity(None)  # this source is done


@dataclass
class _Tally:
    """What `gather` has seen so far: the sources done, the records, and the span of
    landing times the current source has yielded."""

    done: int = 0
    records: int = 0
    earliest: datetime | None = None
    latest: datetime | None = None


async def gather(
    sources: Iterable[Source], window: Window, *, label: str, reporter: Reporter | None = None
) -> list[Activity]:
    """Exactly `digest.pipeline.gather(sources, window)`, reporting progress as the
    activity arrives (see the module docstring)."""
    sources = list(sources)
    shown = reporter or _current.get() or for_service()
    tally = _Tally()

    def seen(activity: Activity | None) -> None:
        if activity is None:
            tally.done += 1
            tally.earliest = tally.latest = None
            part = 0.0
        else:
            tally.records += 1
            moment = activity.landed_at
            tally.earliest = min(tally.earliest or moment, moment)
            tally.latest = max(tally.latest or moment, moment)
            part = covered(window, tally.earliest, tally.latest)
        shown.update(min((tally.done + part) / max(len(sources), 1), 1.0), tally.records)

    shown.start(label)
    try:
        activities = await pipeline.gather([_Watched(s, seen) for s in sources], window)
        shown.finish(len(activities))
    finally:
        shown.close()
    return activities
