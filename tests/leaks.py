"""A test fails when it leaks: an aiohttp ClientSession or connector left open, or a coroutine
never awaited.

aiohttp reports an unclosed session or connector twice when it is collected: a
ResourceWarning, and a call of its event loop's exception handler (which logs "Unclosed
client session" on the `asyncio` logger). Python reports a coroutine that was never awaited
with a RuntimeWarning. `fail_on_leaked_resources` records all three while the test runs and
while garbage is collected at its teardown, and also finds sessions and connectors the test
opened that are still reachable but not closed (held by a module or a cycle that outlives the
test, they would only be reported at interpreter exit). It is autouse through conftest.py.

After each test's collection the survivors are frozen (`gc.freeze`): a full collection over
the whole suite's heap at every teardown cost about a third of the suite's time.
"""

from __future__ import annotations

import gc
import itertools
import logging
import warnings
import weakref
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest

LEAK_WARNINGS = ("Unclosed", "never awaited")

_serial = itertools.count()
_opened: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()  # → when built


def _track(cls: type) -> None:
    """Record every instance of `cls` (and its subclasses) in `_opened` as it is built."""
    original = cls.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        _opened[self] = next(_serial)

    __init__.__wrapped__ = original  # type: ignore[attr-defined]
    cls.__init__ = __init__  # type: ignore[method-assign]


_track(aiohttp.ClientSession)
_track(aiohttp.BaseConnector)


class _Recorder(logging.Handler):
    """Keeps what the event loop's exception handler logs about unclosed resources."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if any(word in message for word in LEAK_WARNINGS):
            self.messages.append(message.splitlines()[0])


def _is_leak(caught: warnings.WarningMessage) -> bool:
    text = str(caught.message)
    if issubclass(caught.category, ResourceWarning):
        return True
    return issubclass(caught.category, RuntimeWarning) and "never awaited" in text


def _describe(resource: Any) -> str:
    return f"{type(resource).__module__}.{type(resource).__qualname__} left open"


@pytest.fixture(autouse=True)
def fail_on_leaked_resources() -> Iterator[None]:
    """Fail the test if it leaves an aiohttp session or connector open or a coroutine
    unawaited; garbage is collected at teardown so that leaks are reported here."""
    start = next(_serial)
    recorder = _Recorder()
    asyncio_log = logging.getLogger("asyncio")
    asyncio_log.addHandler(recorder)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ResourceWarning)
            warnings.filterwarnings("always", "coroutine .* was never awaited", RuntimeWarning)
            yield
            gc.collect()
            # What survived is the suite's own heap (replay files, caches, fixtures): frozen,
            # the next test's collection walks only what that test makes, not all of it again.
            gc.freeze()
            still_open = [
                _describe(resource)
                for resource, built in list(_opened.items())
                if built > start and not resource.closed
            ]
    finally:
        asyncio_log.removeHandler(recorder)
    leaks = [str(w.message).splitlines()[0] for w in caught if _is_leak(w)]
    for other in (w for w in caught if not _is_leak(w)):
        warnings.warn_explicit(other.message, other.category, other.filename, other.lineno)
    found = sorted(set(leaks + recorder.messages + still_open))
    if found:
        pytest.fail("leaked resources:\n  " + "\n  ".join(found), pytrace=False)
