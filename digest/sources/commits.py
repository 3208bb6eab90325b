"""Turning a squash-merge commit message into an Activity (rule N1 of DIGEST.md)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime

from digest.model import Activity, FileChange

_TITLE_PR = re.compile(r"\s*\(#(\d+)\)\s*$")
_RESOLVED_TRAILER = re.compile(
    r"^Pull Request resolved:\s*https?://\S+?/pull/(\d+)\s*$", re.MULTILINE | re.IGNORECASE
)


def split_message(message: str) -> tuple[str, str, int | None]:
    """Split a commit message into (title, body, PR number).

    The PR number comes from a trailing ``(#N)`` on the title (repeated ones, as in
    "Harden … (#19734) (#19734)", are all removed) or else a ``Pull Request resolved:`` trailer.
    """
    first, _, rest = message.strip().partition("\n")
    title = first.strip()
    number: int | None = None
    while match := _TITLE_PR.search(title):
        number = number or int(match.group(1))
        title = title[: match.start()].rstrip()
    if number is None and (match := _RESOLVED_TRAILER.search(rest)):
        number = int(match.group(1))
    return title, rest.strip(), number


def activity_from_commit(
    *,
    repo: str,
    sha: str,
    author: str,
    landed_at: datetime,
    message: str,
    files: Iterable[FileChange] = (),
    labels: Iterable[str] = (),
    url: str | None = None,
) -> Activity:
    """Build an Activity from the parts of a landed commit."""
    title, body, number = split_message(message)
    return Activity(
        repo=repo,
        sha=sha,
        number=number,
        title=title or sha[:12],
        body=body,
        author=author,
        landed_at=landed_at,
        url=url,
        labels=tuple(labels),
        files=tuple(files),
    )
