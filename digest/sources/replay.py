"""`replay:FILE` — activity recorded as JSON Lines (the format of shared/data/activity).

`write_replay_line` is the inverse, used by `wire export`, so any window of any source
can be recorded and replayed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from digest.errors import MalformedInputError, SourceError
from digest.model import Activity, FileChange, Window
from digest.sources.commits import activity_from_commit

_REQUIRED = ("repo", "sha", "message", "committed_at")
_TYPES: dict[str, type] = {
    "repo": str,
    "sha": str,
    "message": str,
    "committed_at": str,
    "author_name": str,
    "url": str,
    "files": list,
    "labels": list,
}


class ReplaySource:
    """Reads a JSON Lines file; every malformed line is an error naming file and line."""

    scheme = "replay"

    def __init__(self, path: str | Path, *, repo: str | None = None) -> None:
        self.path = Path(path)
        self.repo = repo
        if not self.path.is_file():
            raise SourceError(
                f"replay file {self.path} does not exist; pass replay:PATH to a .jsonl file"
            )

    @property
    def description(self) -> str:
        return f"replay:{self.path}"

    async def fetch(self, window: Window) -> AsyncIterator[Activity]:
        """Yield the activity of `window` (and of `repo`, when set) in file order."""
        for activity in self.read_all():
            if window.contains(activity.landed_at) and (
                self.repo is None or activity.repo.lower() == self.repo.lower()
            ):
                yield activity

    def read_all(self) -> list[Activity]:
        """Parse the whole file, failing on the first malformed line."""
        activities = []
        with self.path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    activities.append(parse_replay_line(line, file=str(self.path), line=number))
        return activities


def parse_replay_line(text: str, *, file: str, line: int) -> Activity:
    """Parse one JSON Lines record into an Activity."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedInputError(
            file, line, f"not valid JSON ({exc.msg} at column {exc.colno})"
        ) from None
    if not isinstance(record, dict):
        raise MalformedInputError(file, line, "expected a JSON object")
    missing = [key for key in _REQUIRED if not record.get(key)]
    if missing:
        raise MalformedInputError(file, line, f"missing field(s): {', '.join(missing)}")
    for key, expected in _TYPES.items():
        if record.get(key) is not None and not isinstance(record[key], expected):
            name = "a string" if expected is str else "a list"
            raise MalformedInputError(file, line, f"{key} must be {name}, got {record[key]!r}")
    try:
        landed_at = datetime.fromisoformat(record["committed_at"])
    except ValueError as exc:
        raise MalformedInputError(
            file, line, f"committed_at is not an ISO 8601 time: {exc}"
        ) from None
    if landed_at.tzinfo is None:
        raise MalformedInputError(file, line, "committed_at has no UTC offset")
    try:
        files = [FileChange.model_validate(f) for f in record.get("files") or []]
        return activity_from_commit(
            repo=record["repo"],
            sha=record["sha"],
            author=record.get("author_name") or "",
            landed_at=landed_at,
            message=record["message"],
            files=files,
            labels=record.get("labels") or (),
            url=record.get("url"),
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise MalformedInputError(file, line, f"{where or 'record'}: {first['msg']}") from None


def write_replay_line(activity: Activity) -> str:
    """Serialize an Activity to one JSON Lines record that `parse_replay_line` reads back."""
    title = activity.title if activity.number is None else f"{activity.title} (#{activity.number})"
    message = f"{title}\n\n{activity.body}" if activity.body else title
    record: dict[str, Any] = {
        "repo": activity.repo,
        "sha": activity.sha,
        "author_name": activity.author,
        "authored_at": activity.landed_at.isoformat(),
        "committed_at": activity.landed_at.isoformat(),
        "message": message,
        "files": [f.model_dump() for f in activity.files],
    }
    if activity.labels:
        record["labels"] = list(activity.labels)
    if activity.url:
        record["url"] = activity.url
    return json.dumps(record, ensure_ascii=False)
