"""What the fake serves and what it records: merged pull requests, releases and the requests
it answered."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from digest.model import Activity, FileChange

DOCS = "https://docs.github.com"
CHANGE_TYPES = {"A": "ADDED", "M": "MODIFIED", "D": "DELETED", "R": "RENAMED", "C": "COPIED"}


@dataclass
class FakePull:
    """A merged pull request as the fake serves it (and the commit it landed as)."""

    number: int
    title: str
    merged_at: datetime
    merge_sha: str
    author: str = "octocat"
    body: str = ""
    labels: tuple[str, ...] = ()
    files: tuple[FileChange, ...] = ()


@dataclass
class FakeRelease:
    """A release as the fake serves it: a draft has no `published_at`; `created_at` is the
    date of its commit, as GitHub dates a release (so it can precede the publishing)."""

    tag_name: str
    created_at: datetime
    published_at: datetime | None = None
    name: str | None = None
    description: str = ""
    draft: bool = False
    prerelease: bool = False


def pulls_from_activities(
    activities: Iterable[Activity], *, first_spare_number: int = 900_000
) -> dict[str, list[FakePull]]:
    """Every activity as a merged PR, per repo; those without a PR number get a spare one."""
    repos: dict[str, list[FakePull]] = {}
    spare = first_spare_number
    for activity in activities:
        if activity.number is None:
            spare += 1
        repos.setdefault(activity.repo, []).append(
            FakePull(
                number=activity.number or spare,
                title=activity.title,
                body=activity.body,
                author=re.sub(r"[^A-Za-z0-9-]", "", activity.author) or "ghost",
                merged_at=activity.landed_at,
                merge_sha=activity.sha,
                labels=activity.labels,
                files=activity.files,
            )
        )
    return repos


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    status: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    response_text: str = ""


def iso(moment: datetime) -> str:
    """`moment` as GitHub writes timestamps (UTC, to the second, with Z)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> datetime:
    """A timestamp a client sent; a naive one is read as UTC."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
