"""Sources of activity. Each is opened from a `SCHEME:ARG` spec and yields Activity records.

| scheme | argument | what it reads |
|---|---|---|
| `git` | path to a local clone | `git log` of the checked-out branch, offline |
| `replay` | path to a `.jsonl` file | recorded activity (the shared/data/activity format) |
| `github` | `OWNER/REPO` | merged pull requests through GitHub's GraphQL API |
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any, Protocol

from digest.errors import UnknownSourceError
from digest.model import Activity, Window

SCHEMES = ("git", "replay", "github")


class Source(Protocol):
    """Anything that yields the activity of a window."""

    @property
    def description(self) -> str: ...

    def fetch(self, window: Window) -> AsyncIterator[Activity]: ...


def open_source(spec: str, *, repo: str | None = None, **options: Any) -> Source:
    """Open a source from its `SCHEME:ARG` spec; `repo` narrows or names the repository.

    `options` are passed to the GitHub source (token, api_url, cache, client).
    """
    scheme, sep, arg = spec.partition(":")
    if not sep or not arg:
        raise UnknownSourceError(
            f"source {spec!r} is not SCHEME:ARG; use one of "
            "git:PATH, replay:FILE.jsonl, github:OWNER/REPO"
        )
    if scheme == "replay":
        from digest.sources.replay import ReplaySource

        return ReplaySource(arg, repo=repo)
    if scheme == "git":
        from digest.sources.git import GitSource

        return GitSource(arg, repo=repo)
    if scheme == "github":
        from digest.sources.github import GitHubSource

        return GitHubSource(arg, **options)
    raise UnknownSourceError(
        f"unknown source scheme {scheme!r} in {spec!r}; use one of "
        "git:PATH, replay:FILE.jsonl, github:OWNER/REPO"
    )


# What a local source (a clone, a recording) gives beside a window, for little: the weeks
# before it, from which a story learns how the project spells its name. A network source
# gives the window alone, each request being paid for.
HISTORY = timedelta(days=28)


def reach(source: Source, window: Window, *, history: bool) -> Window:
    """The span to read from `source` for `window`: with `history`, a local source's
    reaches back `HISTORY` before it."""
    from digest.sources.git import GitSource
    from digest.sources.replay import ReplaySource

    if history and isinstance(source, GitSource | ReplaySource):
        return Window(since=window.since - HISTORY, until=window.until)
    return window


async def collect(
    sources: list[Source],
    window: Window,
    each: Callable[[Activity], object] | None = None,
    *,
    history: bool = False,
) -> list[Activity]:
    """Gather the activity of `window` from every source, deduplicated by (repo, sha);
    `each` is called with every activity kept, as it arrives. With `history`, local sources
    give the weeks before the window too (`reach`)."""
    seen: set[tuple[str, str]] = set()
    gathered: list[Activity] = []
    for source in sources:
        async for activity in source.fetch(reach(source, window, history=history)):
            if activity.key not in seen:
                seen.add(activity.key)
                gathered.append(activity)
                if each is not None:
                    each(activity)
    return gathered
